#pragma once
// Typed conversions between the storage layouts. Each function takes valid input (see the
// layout headers) and returns valid output.
//
// Pattern rules (docs/SEMANTICS.md, "Layouts and conversions"; MXNet cast_storage): dense ->
// sparse keeps only nonzeros (for row_sparse: rows with any nonzero); sparse -> sparse keeps
// the stored pattern, explicit zeros included, widening it where the target stores coarser
// units (whole rows for row_sparse, every dense slot of a hybrid COO entry). Duplicate COO
// entries are summed.
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/coo_tensor.h"
#include "core/tensor/dense_tensor.h"
#include "core/tensor/row_sparse_tensor.h"

#include <span>

namespace sparsity::core {

template <class T>
DenseTensor<T> cooToDense(const CooTensor<T> &coo);
template <class T>
DenseTensor<T> compressedToDense(const CompressedTensor<T> &compressed);
template <class T>
DenseTensor<T> rowSparseToDense(const RowSparseTensor<T> &rsp);
// The same into `out` (numel(shape) values, every one written): a block of rows densified into
// a buffer that the next block reuses, without fresh pages to fault in and zero.
template <class T>
void cooToDenseInto(const CooTensor<T> &coo, T *out);
template <class T>
void compressedToDenseInto(const CompressedTensor<T> &compressed, T *out);

// sparseDims = -1 means every dim is sparse.
template <class T>
CooTensor<T> denseToCoo(const DenseTensor<T> &dense, int sparseDims = -1);
// Its nonzeros, or, given `kept` (a byte per element), the elements it marks, zeros included:
// a masked tensor's specified elements, in the order and with the values its coalesced coo
// converts to (a masked block into csc, straight, in a sixth of the time through a coo).
template <class T>
CompressedTensor<T> denseToCompressed(const DenseTensor<T> &dense, CompressedAxis axis, const std::uint8_t *kept = nullptr);
template <class T>
RowSparseTensor<T> denseToRowSparse(const DenseTensor<T> &dense);

// Coalesced, every dim sparse.
template <class T>
CooTensor<T> compressedToCoo(const CompressedTensor<T> &compressed);
// Hybrid COO with one sparse dim (whole rows).
template <class T>
CooTensor<T> rowSparseToCoo(const RowSparseTensor<T> &rsp);
// Moves dense trailing dims of a hybrid COO into the sparse part (every slot stored).
template <class T>
CooTensor<T> cooExpandDenseDims(const CooTensor<T> &coo);
template <class T>
CompressedTensor<T> cooToCompressed(const CooTensor<T> &coo, CompressedAxis axis);
template <class T>
CompressedTensor<T> compressedToAxis(const CompressedTensor<T> &compressed, CompressedAxis axis);
template <class T>
RowSparseTensor<T> cooToRowSparse(const CooTensor<T> &coo);

// Row-major linear index of every stored value, in storage order. Dense: 0..numel-1.
template <class T>
Buffer<std::int64_t> storedLinearIndices(const DenseTensor<T> &t);
template <class T>
Buffer<std::int64_t> storedLinearIndices(const CooTensor<T> &t);
template <class T>
Buffer<std::int64_t> storedLinearIndices(const CompressedTensor<T> &t);
template <class T>
Buffer<std::int64_t> storedLinearIndices(const RowSparseTensor<T> &t);

// A coalesced full-sparse COO from (linear index, value) pairs; duplicates are summed.
template <class T>
CooTensor<T> cooFromLinear(const Shape &shape, std::span<const std::int64_t> linear, std::span<const T> values);

// MXNet retain: the stored rows of `rsp` that are listed in `keep` (any order, duplicates
// allowed; every entry must be a valid row).
template <class T>
RowSparseTensor<T> retainRows(const RowSparseTensor<T> &rsp, std::span<const std::int64_t> keep);

} // namespace sparsity::core
