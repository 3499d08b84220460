#include "core/tensor/sorting.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace sparsity::core {

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
