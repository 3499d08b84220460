#include "core/sparsify/sparsify_tally.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>

namespace sparsity::core {
namespace {

// histogram()'s bin of v, refBin(v) = min(floor((v - lo) / width), bins - 1), without the
// division. refBin is non-decreasing in v, so bin k starts at edge[k], the smallest value of
// T whose refBin is k or more, found once by bisection over T's ordered bit patterns. A
// multiplication by 1 / width gives the bin or one of its neighbours (it is within 1e-13 of
// the quotient), and the edges settle which: the bins are exactly histogram()'s.
template <class T>
class Binning {
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    static constexpr Bits kSign = Bits{1} << (8 * sizeof(T) - 1);
    static Bits key(T v)
    {
        const auto u = std::bit_cast<Bits>(v);
        return (u & kSign) ? ~u : (u | kSign);
    }
    static T value(Bits k) { return std::bit_cast<T>((k & kSign) ? (k & ~kSign) : ~k); }

public:
    static constexpr int kBins = SparsifyTally::kBins;
    explicit Binning(const SparsifyTally &t)
        : m_lo(t.lo), m_hi(t.hi), m_width(t.hi > t.lo ? (t.hi - t.lo) / kBins : 1.0), m_inverse(1.0 / m_width)
    {
        for (int k = 0; k <= kBins; ++k)
            m_edge[static_cast<std::size_t>(k)] = edge(k);
    }
    // A guess within one of bin(v), or kBins for values histogram() does not count (NaN,
    // outside [lo, hi]). Branch-free, so a loop of guesses vectorises.
    int guess(double v) const
    {
        const bool counted = (v >= m_lo) & (v <= m_hi);
        const double position = std::min(((counted ? v : m_lo) - m_lo) * m_inverse, double(kBins - 1));
        const int bin = static_cast<int>(position);
        return counted ? bin : kBins;
    }
    // bin(v) from a guess within one of it: the exact edges settle which.
    int settle(double v, int guess) const
    {
        if (v < m_edge[static_cast<std::size_t>(guess)])
            return guess - 1;
        if (v >= m_edge[static_cast<std::size_t>(guess) + 1])
            return guess + 1;
        return guess;
    }

private:
    int referenceBin(double v) const
    {
        return static_cast<int>(std::min(static_cast<std::size_t>((v - m_lo) / m_width), static_cast<std::size_t>(kBins - 1)));
    }
    // The smallest T in [lo, hi] whose bin is k or more; +inf when there is none.
    double edge(int k) const
    {
        const T lo = static_cast<T>(m_lo), hi = static_cast<T>(m_hi);
        if (k >= kBins || referenceBin(static_cast<double>(hi)) < k)
            return std::numeric_limits<double>::infinity();
        Bits first = key(lo), last = key(hi); // referenceBin(value(last)) >= k
        while (first < last) {
            const Bits middle = first + (last - first) / 2;
            if (referenceBin(static_cast<double>(value(middle))) >= k)
                last = middle;
            else
                first = middle + 1;
        }
        return static_cast<double>(value(first));
    }

    double m_lo, m_hi, m_width, m_inverse;
    std::array<double, kBins + 1> m_edge{};
};

// Below this many elements a pass runs on one thread: waking the team costs more.
constexpr std::int64_t kParallelFrom = 1 << 15;
// A pass works through chunks of this many elements, small enough that the second stage
// finds the chunk's values in L1.
constexpr std::int64_t kChunk = 2048;

struct LocalTally {
    std::int64_t nnzBefore = 0, nnzAfter = 0, pruned = 0;
    // Two copies of each histogram, for even and odd elements: consecutive values in the same
    // bin would otherwise wait on each other's increment.
    std::array<std::array<std::int64_t, SparsifyTally::kBins>, 2> before{}, after{};

    void addTo(SparsifyTally &t) const
    {
        t.nnzBefore += nnzBefore;
        t.nnzAfter += nnzAfter;
        t.pruned += pruned;
        for (std::size_t b = 0; b < SparsifyTally::kBins; ++b) {
            t.before[b] += before[0][b] + before[1][b];
            t.after[b] += after[0][b] + after[1][b];
        }
    }
};

// One pass over values[0, count): keepOf(i, x) decides (branch-free), then the pass counts,
// bins, squashes and, when `maskOut` is given, stores the decisions there. Each chunk is two
// stages: a branch-free loop that decides, counts and guesses bins (the compiler vectorises
// it), then a loop that settles each guess on the exact edges and adds it to the histograms;
// a third, vectorised, squashes.
template <class T, class KeepOf>
void tallyPass(T *values, std::uint8_t *maskOut, std::int64_t count, bool squash, SparsifyTally &tally, KeepOf keepOf)
{
    constexpr int kNotCounted = SparsifyTally::kBins;
    const Binning<T> binning(tally);
    const std::int64_t chunks = (count + kChunk - 1) / kChunk;
#pragma omp parallel if (count >= kParallelFrom)
    {
        LocalTally local;
        std::array<std::uint8_t, kChunk> keeps, guesses;
#pragma omp for schedule(static) nowait
        for (std::int64_t c = 0; c < chunks; ++c) {
            const std::int64_t first = c * kChunk, n = std::min(kChunk, count - first);
            T *chunk = values + first;
            std::int64_t nonzero = 0, keptNonzero = 0, kept = 0;
            for (std::int64_t i = 0; i < n; ++i) {
                const T x = chunk[i];
                const bool keep = keepOf(first + i, x);
                const bool isNonzero = x != T(0);
                nonzero += isNonzero;
                keptNonzero += keep & isNonzero;
                kept += keep;
                keeps[static_cast<std::size_t>(i)] = keep;
                guesses[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(binning.guess(static_cast<double>(x)));
            }
            local.nnzBefore += nonzero;
            local.nnzAfter += keptNonzero;
            local.pruned += n - kept;
            if (maskOut)
                std::copy_n(keeps.begin(), n, maskOut + first);
            for (std::int64_t i = 0; i < n; ++i) {
                const auto at = static_cast<std::size_t>(i);
                const T x = chunk[i];
                if (guesses[at] != kNotCounted) {
                    const auto bin = static_cast<std::size_t>(binning.settle(static_cast<double>(x), guesses[at]));
                    ++local.before[at & 1][bin];
                    local.after[at & 1][bin] += keeps[at];
                }
            }
            // A loop of its own: as a branch in the loop above, a mask as random as a
            // threshold's (40% pruned) mispredicted half the time, the most costly step.
            if (squash)
                for (std::int64_t i = 0; i < n; ++i)
                    chunk[i] = keeps[static_cast<std::size_t>(i)] ? chunk[i] : T(0);
        }
#pragma omp critical(sparsity_tally)
        local.addTo(tally);
    }
}

} // namespace

std::pair<double, double> FiniteRange::bounds() const { return lo <= hi ? std::pair{lo, hi} : std::pair{0.0, 0.0}; }

template <class T>
void finiteRangeOf(const T *values, std::int64_t count, FiniteRange &range)
{
    double lo = range.lo, hi = range.hi;
#pragma omp parallel for reduction(min : lo) reduction(max : hi) schedule(static) if (count >= kParallelFrom)
    for (std::int64_t i = 0; i < count; ++i) {
        const double v = static_cast<double>(values[i]);
        if (std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    range.lo = lo;
    range.hi = hi;
}

template <class T>
void thresholdAndTally(T *values, std::uint8_t *mask, std::int64_t count, T threshold, bool squash, SparsifyTally &tally)
{
    // NaN compares false: kept.
    tallyPass(values, mask, count, squash, tally, [threshold](std::int64_t, T x) { return !(std::abs(x) < threshold); });
}

template <class T>
void applyMaskAndTally(T *values, const std::uint8_t *mask, std::int64_t count, bool squash, SparsifyTally &tally)
{
    tallyPass(values, nullptr, count, squash, tally, [mask](std::int64_t i, T) { return mask[i] != 0; });
}

#define SPARSITY_INSTANTIATE(T)                                                                                                  \
    template void finiteRangeOf<T>(const T *, std::int64_t, FiniteRange &);                                                      \
    template void thresholdAndTally<T>(T *, std::uint8_t *, std::int64_t, T, bool, SparsifyTally &);                             \
    template void applyMaskAndTally<T>(T *, const std::uint8_t *, std::int64_t, bool, SparsifyTally &);
SPARSITY_INSTANTIATE(float)
SPARSITY_INSTANTIATE(double)
#undef SPARSITY_INSTANTIATE

} // namespace sparsity::core
