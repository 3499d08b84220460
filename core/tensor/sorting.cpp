#include "core/tensor/sorting.h"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

namespace sparsity::core {

std::vector<std::int64_t> stableOrderByKey(std::span<const std::int64_t> keys)
{
    std::vector<std::int64_t> order(keys.size());
    if (std::is_sorted(keys.begin(), keys.end())) {
        std::iota(order.begin(), order.end(), std::int64_t{0});
        return order;
    }
    // The (key, position) pairs dealt by the key's high bits into about one bucket per 32 keys
    // (a counting sort: each bucket's pairs in position order), then each bucket sorted alone,
    // in cache. Positions are unique, so ties between keys go by position: the stable order.
    const auto [low, high] = std::minmax_element(keys.begin(), keys.end());
    const auto range = static_cast<std::uint64_t>(*high) - static_cast<std::uint64_t>(*low);
    const auto wanted = std::max<std::uint64_t>(1, keys.size() / 32);
    int shift = 0;
    while (shift < 63 && (range >> shift) >= wanted)
        ++shift;
    const auto bucketOf = [&, low = *low](std::int64_t key) {
        return static_cast<std::size_t>((static_cast<std::uint64_t>(key) - static_cast<std::uint64_t>(low)) >> shift);
    };
    std::vector<std::size_t> start(static_cast<std::size_t>(range >> shift) + 2, 0);
    for (const auto key : keys)
        ++start[bucketOf(key) + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    std::vector<std::pair<std::int64_t, std::int64_t>> keyed(keys.size());
    {
        auto next = start;
        for (std::size_t k = 0; k < keys.size(); ++k)
            keyed[next[bucketOf(keys[k])]++] = {keys[k], static_cast<std::int64_t>(k)};
    }
    for (std::size_t b = 0; b + 1 < start.size(); ++b)
        if (start[b + 1] - start[b] > 1)
            std::sort(keyed.begin() + static_cast<std::ptrdiff_t>(start[b]),
                      keyed.begin() + static_cast<std::ptrdiff_t>(start[b + 1]));
    for (std::size_t k = 0; k < keyed.size(); ++k)
        order[k] = keyed[k].second;
    return order;
}

template <class T>
bool compressedIsCanonical(const CompressedTensor<T> &tensor)
{
    const auto major = tensor.majorSize();
    for (std::int64_t i = 0; i < major; ++i)
        for (auto k = tensor.indptr[static_cast<std::size_t>(i)] + 1; k < tensor.indptr[static_cast<std::size_t>(i + 1)]; ++k)
            if (tensor.indices[static_cast<std::size_t>(k - 1)] >= tensor.indices[static_cast<std::size_t>(k)])
                return false;
    return true;
}

template <class T>
void canonicalizeCompressed(CompressedTensor<T> &tensor)
{
    const auto major = tensor.majorSize();
    Buffer<std::int64_t> indptr(static_cast<std::size_t>(major + 1));
    Buffer<std::int64_t> indices(tensor.indices.size());
    Buffer<T> values(tensor.values.size());
    std::vector<std::int64_t> order;
    std::int64_t out = 0;
    indptr[0] = 0;
    for (std::int64_t i = 0; i < major; ++i) {
        const auto begin = tensor.indptr[static_cast<std::size_t>(i)];
        const auto end = tensor.indptr[static_cast<std::size_t>(i + 1)];
        order.resize(static_cast<std::size_t>(end - begin));
        std::iota(order.begin(), order.end(), begin);
        // Stable, so duplicates are summed in file order (matches scipy's sum_duplicates).
        std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
            return tensor.indices[static_cast<std::size_t>(a)] < tensor.indices[static_cast<std::size_t>(b)];
        });
        for (std::size_t n = 0; n < order.size(); ++n) {
            const auto src = static_cast<std::size_t>(order[n]);
            if (n > 0 && indices[static_cast<std::size_t>(out - 1)] == tensor.indices[src]) {
                values[static_cast<std::size_t>(out - 1)] += tensor.values[src];
                continue;
            }
            indices[static_cast<std::size_t>(out)] = tensor.indices[src];
            values[static_cast<std::size_t>(out)] = tensor.values[src];
            ++out;
        }
        indptr[static_cast<std::size_t>(i + 1)] = out;
    }
    indices.resize(static_cast<std::size_t>(out));
    values.resize(static_cast<std::size_t>(out));
    tensor.indptr = std::move(indptr);
    tensor.indices = std::move(indices);
    tensor.values = std::move(values);
}

#define SPARSITY_INSTANTIATE(T)                                                                                                  \
    template bool compressedIsCanonical<T>(const CompressedTensor<T> &);                                                         \
    template void canonicalizeCompressed<T>(CompressedTensor<T> &);
SPARSITY_INSTANTIATE(float)
SPARSITY_INSTANTIATE(double)
SPARSITY_INSTANTIATE(std::uint8_t)
#undef SPARSITY_INSTANTIATE

} // namespace sparsity::core
