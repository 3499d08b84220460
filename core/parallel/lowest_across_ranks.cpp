#include "core/parallel/lowest_across_ranks.h"

#include <cstring>

namespace sparsity::core {
namespace {

// Below this many keys a stretch is counted or chosen on one thread.
constexpr std::size_t kParallelFrom = std::size_t{1} << 16;
// Keys counted in one go at most, so that no thread's 32-bit bins can overflow.
constexpr std::size_t kMostPerCount = std::size_t{1} << 31;

} // namespace

template <class Key>
void LowestKeys<Key>::countDigits(std::span<const Key> keys, int shift, std::vector<std::int64_t> &bins) const
{
    const int found = kKeyBits - kDigitBits - shift; // high bits already fixed
    const auto matches = [&](Bits b) { return found == 0 || (b >> (kKeyBits - found)) == (m_pivot >> (kKeyBits - found)); };
    if (keys.size() < kParallelFrom) {
        for (const Key key : keys)
            if (const Bits b = orderedBits(key); matches(b))
                ++bins[(b >> shift) & kDigitMask];
        return;
    }
    for (std::size_t first = 0; first < keys.size(); first += kMostPerCount) {
        const auto stretch = keys.subspan(first, std::min(kMostPerCount, keys.size() - first));
        const auto count = static_cast<std::int64_t>(stretch.size());
#pragma omp parallel
        {
            // Each thread its own bins, added up after: 256 KiB of 32-bit counts.
            std::vector<std::uint32_t> local(bins.size());
#pragma omp for schedule(static) nowait
            for (std::int64_t i = 0; i < count; ++i)
                if (const Bits b = orderedBits(stretch[static_cast<std::size_t>(i)]); matches(b))
                    ++local[(b >> shift) & kDigitMask];
#pragma omp critical(sparsity_lowest_keys)
            for (std::size_t d = 0; d < bins.size(); ++d)
                bins[d] += local[d];
        }
    }
}

template <class Key>
void LowestKeys<Key>::Chooser::choose(std::span<const Key> keys, std::uint8_t *chosen)
{
    const auto count = static_cast<std::int64_t>(keys.size());
    if (m_none) {
        std::fill_n(chosen, count, std::uint8_t{0});
        return;
    }
    // Below the pivot: chosen. Equal to it (marked 2): chosen while places are left, in order.
    constexpr std::uint8_t kEqual = 2;
    const Bits pivot = m_pivot;
#pragma omp parallel for schedule(static) if (keys.size() >= kParallelFrom)
    for (std::int64_t i = 0; i < count; ++i) {
        const Bits b = orderedBits(keys[static_cast<std::size_t>(i)]);
        chosen[i] = b < pivot ? std::uint8_t{1} : b == pivot ? kEqual : std::uint8_t{0};
    }
    auto *end = chosen + count;
    for (auto *equal = chosen;
         (equal = static_cast<std::uint8_t *>(std::memchr(equal, kEqual, static_cast<std::size_t>(end - equal)))); ++equal) {
        *equal = m_places > 0;
        m_places -= m_places > 0;
    }
}

template <class Key>
void LowestKeys<Key>::chooseDigit(std::vector<std::int64_t> &bins, int shift)
{
    const auto here = bins; // this rank's, before the sum
    m_group.sum(bins);
    std::size_t digit = 0;
    while (m_rank > bins[digit])
        m_rank -= bins[digit++];
    m_pivot |= static_cast<Bits>(static_cast<Bits>(digit) << shift);
    m_equalHere = here[digit]; // after the last round: the keys equal to the pivot
}

template <class Key>
std::vector<std::uint8_t> lowestAcrossRanks(const RankGroup &group, std::span<const Key> keys, std::int64_t k)
{
    const LowestKeys<Key> selection(group, static_cast<std::int64_t>(keys.size()), k, [&](auto &&count) { count(keys); });
    typename LowestKeys<Key>::Chooser chooser(selection);
    std::vector<std::uint8_t> chosen(keys.size());
    chooser.choose(keys, chosen.data());
    return chosen;
}

template class LowestKeys<float>;
template class LowestKeys<double>;
template std::vector<std::uint8_t> lowestAcrossRanks<float>(const RankGroup &, std::span<const float>, std::int64_t);
template std::vector<std::uint8_t> lowestAcrossRanks<double>(const RankGroup &, std::span<const double>, std::int64_t);

} // namespace sparsity::core
