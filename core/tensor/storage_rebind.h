#pragma once
// withValues<T>(storage, values): the same index structure as `storage` holding other values
// (one per stored value). Used for masks, which share their data's structure, and for
// gathers such as sparse_mask.
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/coo_tensor.h"
#include "core/tensor/dense_tensor.h"
#include "core/tensor/row_sparse_tensor.h"

namespace sparsity::core {

template <class T, class U>
DenseTensor<T> withValues(const DenseTensor<U> &p, Buffer<T> v)
{
    return {p.shape, std::move(v)};
}
template <class T, class U>
CooTensor<T> withValues(const CooTensor<U> &p, Buffer<T> v)
{
    return {p.shape, p.sparseDims, p.nnz, p.indices, std::move(v), p.coalesced};
}
template <class T, class U>
CompressedTensor<T> withValues(const CompressedTensor<U> &p, Buffer<T> v)
{
    return {p.shape, p.axis, p.indptr, p.indices, std::move(v)};
}
template <class T, class U>
RowSparseTensor<T> withValues(const RowSparseTensor<U> &p, Buffer<T> v)
{
    return {p.shape, p.rows, std::move(v)};
}

} // namespace sparsity::core
