#include "core/parallel/lowest_across_ranks.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace sparsity::core {
namespace {

constexpr int kDigitBits = 16;
constexpr std::size_t kBins = std::size_t{1} << kDigitBits;

// A key's bits as an unsigned number with the key's order: -0 is 0 and every NaN is above +inf.
std::uint64_t orderedBits(double key)
{
    if (std::isnan(key))
        return ~std::uint64_t{0};
    if (key == 0.0)
        key = 0.0;
    const auto bits = std::bit_cast<std::uint64_t>(key);
    return (bits >> 63) != 0 ? ~bits : bits | (std::uint64_t{1} << 63);
}

} // namespace

std::vector<std::uint8_t> lowestAcrossRanks(const RankGroup &group, std::span<const double> keys, std::int64_t k)
{
    std::vector<std::uint64_t> bits(keys.size());
    std::transform(keys.begin(), keys.end(), bits.begin(), orderedBits);
    const auto total = group.sum(static_cast<std::int64_t>(keys.size()));
    k = std::clamp<std::int64_t>(k, 0, total);
    std::vector<std::uint8_t> chosen(keys.size(), 0);
    if (k == 0)
        return chosen;

    // The k-th lowest key (`pivot`), a digit at a time; `rank` counts what is still to place
    // among the keys that share the digits found so far.
    std::uint64_t pivot = 0;
    std::int64_t rank = k;
    std::vector<std::int64_t> bins(kBins);
    for (int shift = 64 - kDigitBits; shift >= 0; shift -= kDigitBits) {
        std::fill(bins.begin(), bins.end(), 0);
        const int found = 64 - kDigitBits - shift; // high bits already fixed
        for (const auto b : bits)
            if (found == 0 || (b >> (64 - found)) == (pivot >> (64 - found)))
                ++bins[(b >> shift) & (kBins - 1)];
        group.sum(bins);
        std::size_t digit = 0;
        while (rank > bins[digit])
            rank -= bins[digit++];
        pivot |= static_cast<std::uint64_t>(digit) << shift;
    }
    // Below the pivot: chosen. Equal to it: the first `rank` of the sequence.
    std::int64_t equal = 0;
    for (std::size_t i = 0; i < bits.size(); ++i) {
        chosen[i] = bits[i] < pivot;
        equal += bits[i] == pivot;
    }
    auto places = std::clamp<std::int64_t>(rank - group.exclusiveScan(equal), 0, equal);
    for (std::size_t i = 0; i < bits.size() && places > 0; ++i)
        if (bits[i] == pivot) {
            chosen[i] = 1;
            --places;
        }
    return chosen;
}

} // namespace sparsity::core
