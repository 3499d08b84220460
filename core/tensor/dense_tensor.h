#pragma once
// DenseTensor<T>: strided row-major storage of any rank (0-d and empty included).
//
// Invariants:
//   D1  values.size() == numel(shape)
#include "core/tensor/buffer.h"
#include "core/tensor/shape.h"

namespace sparsity::core {

template <class T>
struct DenseTensor {
    Shape shape;
    Buffer<T> values;

    std::int64_t numel() const { return static_cast<std::int64_t>(values.size()); }
};

template <class T>
DenseTensor<T> makeDense(Shape shape) // uninitialised values
{
    DenseTensor<T> tensor{std::move(shape), {}};
    tensor.values.resize(static_cast<std::size_t>(checkedNumel(tensor.shape)));
    return tensor;
}

template <class T>
void validateDense(const DenseTensor<T> &tensor);

} // namespace sparsity::core
