#pragma once
// Ordering helpers shared by validation and conversion: lexicographic order of COO entries
// and the canonical (sorted, unique) form of compressed slices.
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/coo_tensor.h"

#include <cstdint>
#include <span>
#include <vector>

namespace sparsity::core {

// Linear index of COO entry `entry` of `nnz`, their indices dim-major over the first
// `sparseDims` dims of `shape` (row-major). Fits int64 because the shape's numel does (checked
// at validation).
inline std::int64_t
cooLinearIndex(std::span<const std::int64_t> indices, std::int64_t nnz, const Shape &shape, int sparseDims, std::int64_t entry)
{
    std::int64_t linear = 0;
    for (int d = 0; d < sparseDims; ++d)
        linear = linear * shape[static_cast<std::size_t>(d)] + indices[static_cast<std::size_t>(d * nnz + entry)];
    return linear;
}
template <class T>
std::int64_t cooLinearIndex(const CooTensor<T> &tensor, std::int64_t entry)
{
    return cooLinearIndex(tensor.indices, tensor.nnz, tensor.shape, tensor.sparseDims, entry);
}

// Whether `nnz` coo entries, their indices dim-major over the first `sparseDims` dims of
// `shape`, are in strictly rising row-major order (sorted, no duplicates: coalesced).
inline bool cooIndicesSortedUnique(std::span<const std::int64_t> indices, std::int64_t nnz, const Shape &shape, int sparseDims)
{
    // Each entry's linear index computed once (a fifth of a coo block's read went here).
    std::int64_t previous = 0;
    for (std::int64_t k = 0; k < nnz; ++k) {
        const auto linear = cooLinearIndex(indices, nnz, shape, sparseDims, k);
        if (k > 0 && previous >= linear)
            return false;
        previous = linear;
    }
    return sparseDims > 0 || nnz <= 1;
}

template <class T>
bool cooIsSortedUnique(const CooTensor<T> &tensor)
{
    return cooIndicesSortedUnique(tensor.indices, tensor.nnz, tensor.shape, tensor.sparseDims);
}

// The order that sorts `keys` ascending, equal keys in the order given: what a stable sort of
// the positions by key gives (duplicates are summed in stored order through it), found by an
// unstable sort of (key, position) pairs held side by side. A stable sort of positions read
// each key through its position, a cache miss per comparison: coalescing 4.1 M shuffled coo
// entries took about a second of a 1.5 s conversion (PERFORMANCE.md, stop 52).
std::vector<std::int64_t> stableOrderByKey(std::span<const std::int64_t> keys);

template <class T>
bool compressedIsCanonical(const CompressedTensor<T> &tensor);

// Sorts minor indices within each slice and sums duplicates, in place.
template <class T>
void canonicalizeCompressed(CompressedTensor<T> &tensor);

} // namespace sparsity::core
