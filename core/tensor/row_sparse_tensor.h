#pragma once
// RowSparseTensor<T>: MXNet's RowSparseNDArray / TensorFlow's IndexedSlices. A set of whole
// rows of a tensor of rank >= 1; rows not listed are zero.
//   rows    [k]                        sorted unique row numbers
//   values  [k x numel(shape[1:])]     dense[rows[i], ...] = values[i, ...]
//
// Invariants:
//   R1  rank >= 1
//   R2  values.size() == rows.size() * numel(shape[1:])
//   R3  0 <= rows[i] < shape[0]
//   R4  rows strictly increasing (sorted and unique)
#include "core/tensor/buffer.h"
#include "core/tensor/shape.h"

#include <span>

namespace sparsity::core {

template <class T>
struct RowSparseTensor {
    Shape shape;
    Buffer<std::int64_t> rows;
    Buffer<T> values;

    std::int64_t rowSize() const { return numel(shape, 1, shape.size()); }
    std::int64_t storedRows() const { return static_cast<std::int64_t>(rows.size()); }
};

template <class T>
void validateRowSparse(const RowSparseTensor<T> &tensor);
// R3 and R4 alone: `rows` (a row_sparse tensor's indices) in [0, shape[0]), strictly increasing.
void validateRowSparseRows(const Shape &shape, std::span<const std::int64_t> rows);

} // namespace sparsity::core
