#pragma once
// MaskedValue<T>: what the expression evaluator computes with.
//
// Values are dense and row-major whatever layout the tensor came in; `storage` remembers that
// layout so a result is written back in its operands' own encoding. Three kinds:
//   Plain   every element is specified (a dense tensor). No mask.
//   Sparse  a sparse tensor without a mask: `mask` is its stored pattern and the values
//           outside it are 0. Elementwise ops and reductions read it as the dense tensor it
//           stands for; pattern-aware ops (sparse_mm, sparse_mask, softmax, to_dense) use the
//           pattern, as torch.sparse does.
//   Masked  torch.masked.MaskedTensor: `mask` marks the specified elements (true). Values
//           outside it are the data's (kept, since `data(x)` reads them) and mean nothing.
// Masks are shared: a unary op's result points at its operand's mask instead of copying it.
#include "core/tensor/buffer.h"
#include "core/tensor/layout.h"
#include "core/tensor/shape.h"
#include "core/tensor/tensor.h"

#include <memory>

namespace sparsity::core {

enum class ValueKind { Plain, Sparse, Masked };

using SharedMask = std::shared_ptr<const Mask>;

template <class T>
struct MaskedValue {
    Shape shape;
    Buffer<T> values;
    SharedMask mask; // null exactly when kind == Plain
    ValueKind kind = ValueKind::Plain;
    Layout storage = Layout::Dense;
    bool isBool = false; // read from a bool dataset (values 0/1)

    std::int64_t numel() const { return static_cast<std::int64_t>(values.size()); }
    bool specified(std::int64_t i) const { return !mask || (*mask)[static_cast<std::size_t>(i)] != 0; }
};

// `tensor` as a value: masked tensors keep their data and mask, unmasked sparse tensors
// become Sparse (pattern = stored entries), dense ones Plain. `isBool` marks bool datasets.
template <class T>
MaskedValue<T> toMaskedValue(const Tensor &tensor, bool isBool);
// The same, taking a dense tensor's values and mask instead of copying them when they are
// already of type T (a block of rows read for one evaluation).
template <class T>
MaskedValue<T> toMaskedValue(Tensor &&tensor, bool isBool);

// Back to a Tensor in the value's storage layout: Masked as a masked tensor (sparse storage
// stores exactly the specified elements), Sparse as an unmasked sparse tensor storing exactly
// its pattern (zeros included), Plain as a dense tensor.
template <class T>
Tensor toTensor(const MaskedValue<T> &value);

// Number of specified elements (Plain: numel; Sparse: stored entries).
template <class T>
std::int64_t specifiedCount(const MaskedValue<T> &value);

std::string_view valueKindName(ValueKind kind);

} // namespace sparsity::core
