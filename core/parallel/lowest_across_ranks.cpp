#include "core/parallel/lowest_across_ranks.h"

namespace sparsity::core {

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
    const LowestKeys<Key> selection(group, static_cast<std::int64_t>(keys.size()), k, [&](auto &&add) {
        for (const auto key : keys)
            add(key);
    });
    typename LowestKeys<Key>::Chooser chooser(selection);
    std::vector<std::uint8_t> chosen(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
        chosen[i] = chooser.next(keys[i]);
    return chosen;
}

template class LowestKeys<float>;
template class LowestKeys<double>;
template std::vector<std::uint8_t> lowestAcrossRanks<float>(const RankGroup &, std::span<const float>, std::int64_t);
template std::vector<std::uint8_t> lowestAcrossRanks<double>(const RankGroup &, std::span<const double>, std::int64_t);

} // namespace sparsity::core
