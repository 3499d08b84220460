#pragma once
// The k lowest of a sequence of keys spread over the ranks of a group, each rank holding one
// contiguous stretch of it in rank order: the first k of a stable sort of the whole sequence
// by key, NaN after every number, ties to the lower position. data-norm's sparsified blocks
// (the k lowest scores) and row-norm's kept rows (the k highest norms) are this selection.
//
// A distributed radix selection (no rank ever holds another's keys): the k-th key is found
// 16 bits at a time from a 65,536-bin histogram of the candidates, summed across ranks (two
// rounds for float keys, four for double); keys below it are chosen, and an exclusive scan of
// each rank's count of keys equal to it hands the remaining places to the lowest positions.
// In a group of one it is the same computation, so the single-process and the MPI results
// are one code's. The keys need not be held: each round visits them again, a stretch at a
// time (a streamed tensor's block scores are computed again from its rows), and a Chooser
// then says, stretch by stretch in order, which are chosen. Rounds and choices over a long
// stretch run on every thread.
#include "core/parallel/rank_group.h"
#include "core/util/ordered_bits.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace sparsity::core {

template <class Key> // float or double
class LowestKeys {
public:
    using Bits = OrderedBits<Key>;
    static constexpr int kDigitBits = 16;

    // `visit(f)` calls f(std::span<const Key>) on stretches of this rank's `localCount` keys,
    // in order; it is called once per round, on every rank alike (collective).
    template <class Visit>
    LowestKeys(const RankGroup &group, std::int64_t localCount, std::int64_t k, Visit &&visit) : m_group(group)
    {
        const auto total = group.sum(localCount);
        m_k = k < 0 ? 0 : k > total ? total : k;
        m_rank = m_k;
        std::vector<std::int64_t> bins(std::size_t{1} << kDigitBits);
        for (int shift = kKeyBits - kDigitBits; m_k > 0 && shift >= 0; shift -= kDigitBits) {
            std::fill(bins.begin(), bins.end(), 0);
            visit([&](std::span<const Key> keys) { countDigits(keys, shift, bins); });
            chooseDigit(bins, shift);
        }
        m_placesBefore = group.exclusiveScan(m_equalHere);
    }

    // How many keys are chosen over every rank: k clamped to [0, total keys].
    std::int64_t chosenCount() const { return m_k; }

    // Which of this rank's keys are chosen, asked stretch by stretch, in order.
    class Chooser {
    public:
        explicit Chooser(const LowestKeys &selection)
            : m_pivot(selection.m_pivot), m_none(selection.m_k == 0),
              m_places(std::clamp<std::int64_t>(selection.m_rank - selection.m_placesBefore, 0, selection.m_equalHere))
        {
        }
        // chosen[i] = 1 when keys[i] is chosen, else 0.
        void choose(std::span<const Key> keys, std::uint8_t *chosen);

    private:
        Bits m_pivot;
        bool m_none;
        std::int64_t m_places;
    };

    // A key's bits as an unsigned number with the key's order, -0 and +0 as one, every NaN
    // above +inf.
    static Bits orderedBits(Key key)
    {
        if (std::isnan(key))
            return ~Bits{0};
        return orderedBitsOf(key == Key(0) ? Key(0) : key);
    }

private:
    static constexpr int kKeyBits = 8 * sizeof(Key);
    static constexpr Bits kDigitMask = (Bits{1} << kDigitBits) - 1;

    // Adds to `bins` the digits at `shift` of the keys whose higher digits are the pivot's.
    void countDigits(std::span<const Key> keys, int shift, std::vector<std::int64_t> &bins) const;
    // Sums this round's histogram over the ranks and fixes the pivot's digit at `shift`.
    void chooseDigit(std::vector<std::int64_t> &bins, int shift);

    const RankGroup &m_group;
    std::int64_t m_k = 0;
    Bits m_pivot = 0;
    std::int64_t m_rank = 0;         // places left among the keys sharing the pivot's digits so far
    std::int64_t m_equalHere = 0;    // this rank's keys equal to the pivot
    std::int64_t m_placesBefore = 0; // keys equal to the pivot on the ranks below this one
};

// chosen[i] = 1 when this rank's keys[i] is among the k lowest of the whole sequence; k is
// clamped to [0, total keys]. Collective.
template <class Key>
std::vector<std::uint8_t> lowestAcrossRanks(const RankGroup &group, std::span<const Key> keys, std::int64_t k);

} // namespace sparsity::core
