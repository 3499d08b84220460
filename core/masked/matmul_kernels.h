#pragma once
// Matrix products of 2-d values.
//
//  mm(a, b)         non-masked: unspecified and unstored elements count as 0; dense result.
//                   If either operand is Masked, the product follows the masked-reduction
//                   rule instead: c[i,j] sums a[i,k]*b[k,j] over the k where both are
//                   specified, and is specified where at least one such k exists.
//  sparse_mm(a, b)  torch.sparse.mm: `a` must be Sparse or Masked. Same values; the result
//                   is Sparse (pattern = the structural product) when b is Sparse, Masked when
//                   either is Masked, else a dense Plain value.
// Both throw InputError on rank or inner-dimension mismatch; the caller adds the column.
//
// A product's rows are computed in fixed chunks of kProductChunkRows rows counted from row 0
// (the last chunk holds what remains), each by one single-threaded Eigen product. A row's bits
// depend on the chunk it lies in (Eigen treats a product's last few rows apart), so they do not
// depend on the thread count, and rows [first, end) of `a` give the rows the whole product
// gives there whenever `first` is a multiple of kProductChunkRows and `end` is one too or is
// the last row: eval streams products (core/pipeline/eval_blocks.h) in such blocks.
#include "core/masked/masked_value.h"

#include <cstdint>

namespace sparsity::core {

inline constexpr std::int64_t kProductChunkRows = 64;

template <class T>
MaskedValue<T> matmul(const MaskedValue<T> &a, const MaskedValue<T> &b, bool sparseProduct);

} // namespace sparsity::core
