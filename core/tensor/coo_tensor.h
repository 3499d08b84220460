#pragma once
// CooTensor<T>: coordinate storage, N-d, hybrid (PyTorch's sparse_coo_tensor): the first
// `sparseDims` dims are indexed, the remaining dims are dense and stored per entry.
//   indices  [sparseDims x nnz], dim-major: indices[d * nnz + k] is entry k's index in dim d
//   values   [nnz x numel(shape[sparseDims:])]
// `coalesced` means entries are sorted lexicographically by index and unique; duplicates of an
// uncoalesced tensor add up (coalesce() sums them).
//
// Invariants:
//   C1  0 <= sparseDims <= rank
//   C2  indices.size() == sparseDims * nnz
//   C3  values.size() == nnz * numel(shape[sparseDims:])
//   C4  0 <= indices[d, k] < shape[d] for every d < sparseDims
//   C5  coalesced implies sorted and unique
#include "core/tensor/buffer.h"
#include "core/tensor/shape.h"
#include "core/util/errors.h"
#include "core/util/validation_report.h"

#include <optional>

namespace sparsity::core {

template <class T>
struct CooTensor {
    Shape shape;
    int sparseDims = 0;
    std::int64_t nnz = 0;
    Buffer<std::int64_t> indices;
    Buffer<T> values;
    bool coalesced = false;

    std::int64_t rank() const { return static_cast<std::int64_t>(shape.size()); }
    // Elements stored per entry: numel of the dense trailing dims.
    std::int64_t denseSize() const { return numel(shape, static_cast<std::size_t>(sparseDims), shape.size()); }
    std::int64_t index(int dim, std::int64_t entry) const { return indices[static_cast<std::size_t>(dim * nnz + entry)]; }
};

// Throws InputError citing C1..C5. Sets `coalesced` from the data when `detectCoalesced`.
// Messages number the entries from `firstEntry`: a slice of a larger tensor's entries (read by
// one rank of several) starts there.
template <class T>
void validateCoo(CooTensor<T> &tensor, bool detectCoalesced, std::int64_t firstEntry = 0);

// The entry whose index C4 rejects first (validateCoo checks dim by dim, entries in order
// within a dim), or nullopt when every index is in range.
struct CooEntryIndex {
    int dim = 0;
    std::int64_t entry = 0;
};
template <class T>
std::optional<CooEntryIndex> firstIndexOutOfRange(const CooTensor<T> &tensor);
// C4's error for entry `entry`'s index `value` in dim `dim` of a tensor of `shape`, numbered as
// a whole read numbers it: validateCoo's message, and a reader's that checks a dim by windows.
InputError cooIndexOutOfRange(const Shape &shape, int dim, std::int64_t entry, std::int64_t value);

// Sorts entries and sums duplicates. Keeps explicit zeros (the pattern is data).
template <class T>
CooTensor<T> coalesce(const CooTensor<T> &tensor);

} // namespace sparsity::core
