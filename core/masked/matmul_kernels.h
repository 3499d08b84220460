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
#include "core/masked/masked_value.h"

namespace sparsity::core {

template <class T>
MaskedValue<T> matmul(const MaskedValue<T> &a, const MaskedValue<T> &b, bool sparseProduct);

} // namespace sparsity::core
