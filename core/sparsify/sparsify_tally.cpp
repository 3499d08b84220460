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
    // -1 for values histogram() does not count (NaN, outside [lo, hi]).
    int bin(double v) const
    {
        if (!(v >= m_lo && v <= m_hi))
            return -1;
        int b = std::min(static_cast<int>((v - m_lo) * m_inverse), kBins - 1);
        if (v < m_edge[static_cast<std::size_t>(b)])
            --b;
        else if (v >= m_edge[static_cast<std::size_t>(b) + 1])
            ++b;
        return b;
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

struct LocalTally {
    std::int64_t nnzBefore = 0, nnzAfter = 0, pruned = 0;
    std::array<std::int64_t, SparsifyTally::kBins> before{}, after{};

    void addTo(SparsifyTally &t) const
    {
        t.nnzBefore += nnzBefore;
        t.nnzAfter += nnzAfter;
        t.pruned += pruned;
        for (int b = 0; b < SparsifyTally::kBins; ++b) {
            t.before[static_cast<std::size_t>(b)] += before[static_cast<std::size_t>(b)];
            t.after[static_cast<std::size_t>(b)] += after[static_cast<std::size_t>(b)];
        }
    }
};

// One pass over values[0, count): keepOf(i, x) decides, then counts, bins and squashes.
template <class T, class KeepOf>
void tallyPass(T *values, std::int64_t count, bool squash, SparsifyTally &tally, KeepOf keepOf)
{
    const Binning<T> binning(tally);
#pragma omp parallel if (count >= kParallelFrom)
    {
        LocalTally local;
#pragma omp for schedule(static) nowait
        for (std::int64_t i = 0; i < count; ++i) {
            const T x = values[i];
            const bool keep = keepOf(i, x);
            const bool nonzero = x != T(0);
            local.nnzBefore += nonzero;
            local.nnzAfter += keep && nonzero;
            local.pruned += !keep;
            const int bin = binning.bin(static_cast<double>(x));
            if (bin >= 0) {
                ++local.before[static_cast<std::size_t>(bin)];
                local.after[static_cast<std::size_t>(bin)] += keep;
            }
            if (squash && !keep)
                values[i] = T(0);
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
    tallyPass(values, count, squash, tally, [&](std::int64_t i, T x) {
        const bool keep = !(std::abs(x) < threshold); // NaN compares false: kept
        if (mask)
            mask[i] = keep;
        return keep;
    });
}

template <class T>
void applyMaskAndTally(T *values, const std::uint8_t *mask, std::int64_t count, bool squash, SparsifyTally &tally)
{
    tallyPass(values, count, squash, tally, [&](std::int64_t i, T) { return mask[i] != 0; });
}

#define SPARSITY_INSTANTIATE(T)                                                                                                  \
    template void finiteRangeOf<T>(const T *, std::int64_t, FiniteRange &);                                                      \
    template void thresholdAndTally<T>(T *, std::uint8_t *, std::int64_t, T, bool, SparsifyTally &);                             \
    template void applyMaskAndTally<T>(T *, const std::uint8_t *, std::int64_t, bool, SparsifyTally &);
SPARSITY_INSTANTIATE(float)
SPARSITY_INSTANTIATE(double)
#undef SPARSITY_INSTANTIATE

} // namespace sparsity::core
