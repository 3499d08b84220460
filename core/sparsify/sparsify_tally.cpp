#include "core/sparsify/sparsify_tally.h"

#include "core/util/cpu_clones.h"
#include "core/util/ordered_bits.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

namespace sparsity::core {
namespace {

// histogram()'s bin of v, refBin(v) = min(floor((v - lo) / width), bins - 1)
// (HistogramBins::binOf, at its scale), without the division. refBin is non-decreasing in v,
// so over T's values in the order of their bit patterns (key()) bin k starts at the key of
// edge[k], the smallest value whose refBin is k or more, found once by bisection. The keys are
// then cut into regions of their top bits: a table gives each region's bin when all its keys
// share one (or none is counted), so almost every value is binned by a shift and a table load.
// The few values in a region an edge cuts are binned exactly (a guess from a multiplication by
// 1 / width, settled on the edges). The bins are histogram()'s, value for value. A threshold's
// pass gives its threshold: the table then holds each region's slot, 2 * bin + keep, where
// every key of the region is kept or none is, and cuts the regions in which |v| reaches the
// threshold, so the count reads no decision.
template <class T>
class Binning {
public:
    using Bits = OrderedBits<T>;
    static constexpr int kBins = SparsifyTally::kBins;
    // A region's entry: 2 * bin (+ keep, of a threshold's table), or one of these.
    static constexpr std::uint8_t kNotCounted = 2 * kBins;      // NaN, +-inf: outside [lo, hi]
    static constexpr std::uint8_t kCutByAnEdge = 2 * kBins + 2; // binned exactly (so even)
    // 64 KiB of table for float (regions of 1/128 of a binade), 256 KiB for double.
    static constexpr int kRegionBits = sizeof(T) == 4 ? 16 : 18;
    static constexpr int kRegionShift = 8 * sizeof(T) - kRegionBits;

    static Bits key(T v) { return orderedBitsOf(v); }
    // A region number, in 16 bits where it fits: the second stage reads fewer bytes.
    using Region = std::conditional_t<kRegionBits <= 16, std::uint16_t, std::uint32_t>;
    static Region regionOf(T v) { return static_cast<Region>(key(v) >> kRegionShift); }

    static constexpr std::size_t kRegions = std::size_t{1} << kRegionBits;

    // The table costs a walk over its regions: a pass over fewer `values` than four times as
    // many bins every value exactly instead. `threshold`: a threshold pass's (keep = !(|v| <
    // threshold)), whose keeps the table then holds.
    Binning(const SparsifyTally &t, std::int64_t values, std::optional<T> threshold)
        : m_lo(t.lo), m_hi(t.hi), m_bins(t.lo, t.hi, kBins), m_inverse(1.0 / m_bins.width())
    {
        for (int k = 0; k <= kBins; ++k)
            m_edge[static_cast<std::size_t>(k)] = edge(k);
        if (values >= static_cast<std::int64_t>(4 * kRegions))
            fillRegions(threshold);
    }
    // The region's entry: 2 * bin (+ keep, of a threshold's table), kNotCounted, or
    // kCutByAnEdge.
    std::uint8_t slotOfRegion(Region region) const
    {
        return m_region.empty() ? kCutByAnEdge : m_region[static_cast<std::size_t>(region)];
    }
    // bin(v), or kNotCounted: for a value in a region an edge cuts.
    std::uint8_t exactBin(T value) const
    {
        const auto v = static_cast<double>(value);
        if (!(v >= m_lo && v <= m_hi))
            return kNotCounted;
        const int guess = static_cast<int>(std::min(m_bins.offset(v) * m_inverse, double(kBins - 1)));
        // A guess within one of the bin: the exact edges settle which.
        if (v < m_edge[static_cast<std::size_t>(guess)])
            return static_cast<std::uint8_t>(guess - 1);
        if (v >= m_edge[static_cast<std::size_t>(guess) + 1])
            return static_cast<std::uint8_t>(guess + 1);
        return static_cast<std::uint8_t>(guess);
    }

private:
    static T value(Bits k) { return fromOrderedBits<T>(k); }

    int referenceBin(double v) const { return m_bins.binOf(v); }
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
    // A region's keys are [r << shift, (r + 1) << shift); the counted keys [key(lo), key(hi)].
    // One walk up the regions and the edges together. A threshold's pruned keys are those
    // strictly between key(-threshold) and key(threshold).
    void fillRegions(std::optional<T> threshold)
    {
        m_region.assign(kRegions, kNotCounted);
        const Bits lo = key(static_cast<T>(m_lo)), hi = key(static_cast<T>(m_hi));
        std::array<Bits, kBins + 1> edgeKey{}; // bin(k) = #{j in [1, kBins) : k >= edgeKey[j]}
        for (std::size_t j = 1; j < kBins; ++j)
            edgeKey[j] = std::isinf(m_edge[j]) ? ~Bits{0} : key(static_cast<T>(m_edge[j]));
        edgeKey[kBins] = ~Bits{0};
        // A threshold's kept keys: up to key(-threshold), and from key(threshold) on.
        const Bits lowKept = threshold ? key(-*threshold) : Bits{0}, highKept = threshold ? key(*threshold) : Bits{0};
        std::size_t bin = 0; // the bin of the region's first key
        for (std::size_t r = lo >> kRegionShift; r <= (hi >> kRegionShift); ++r) {
            const Bits first = static_cast<Bits>(r) << kRegionShift, last = first | ((Bits{1} << kRegionShift) - 1);
            while (bin + 1 < kBins && first >= edgeKey[bin + 1])
                ++bin;
            bool cut = first < lo || last > hi || (bin + 1 < kBins && last >= edgeKey[bin + 1]);
            std::uint8_t keep = 0;
            if (threshold) {
                const bool pruned = first > lowKept && last < highKept;
                const bool kept = last <= lowKept || first >= highKept;
                cut = cut || !(pruned || kept);
                keep = kept ? 1 : 0;
            }
            m_region[r] = cut ? kCutByAnEdge : static_cast<std::uint8_t>(2 * bin + keep);
        }
        // -0 equals a least bound of +0 but its key lies just below, in the region before lo's:
        // binned exactly there, it is counted (as histogram() counts it) and the region's
        // negative values are not.
        if (m_lo == 0.0)
            m_region[static_cast<std::size_t>(regionOf(T(-0.0)))] = kCutByAnEdge;
    }

    double m_lo, m_hi;
    HistogramBins m_bins;
    double m_inverse;
    std::array<double, kBins + 1> m_edge{};
    std::vector<std::uint8_t> m_region;
};

// Below this many elements a pass runs on one thread: waking the team costs more.
constexpr std::int64_t kParallelFrom = 1 << 15;
// A pass works through chunks of this many elements, small enough that the second stage
// finds the chunk's values in L1.
constexpr std::int64_t kChunk = 2048;

struct LocalTally {
    std::int64_t nnzBefore = 0, nnzAfter = 0, pruned = 0, held = 0;
    // Each bin b counts pruned values at 2b and kept ones at 2b + 1: one increment per value.
    // A masked input's unspecified values go to kUncounted, added nowhere.
    static constexpr std::size_t kUncounted = 2 * SparsifyTally::kBins;
    std::array<std::int64_t, kUncounted + 1> counts{};

    void addTo(SparsifyTally &t) const
    {
        t.nnzBefore += nnzBefore;
        t.nnzAfter += nnzAfter;
        t.pruned += pruned;
        t.held += held;
        for (std::size_t b = 0; b < SparsifyTally::kBins; ++b) {
            t.before[b] += counts[2 * b] + counts[2 * b + 1];
            t.after[b] += counts[2 * b + 1];
        }
    }
};

// One chunk of a pass, chunk[0, n) with n <= kChunk: keepOf(i, x) decides (branch-free), then
// the chunk is counted, binned, squashed and, when `maskOut` is given, its decisions stored
// there. Two stages: a branch-free loop that decides, counts and finds each value's key region
// (the compiler vectorises it), then a loop that looks the regions' bins up and counts them; a
// third, vectorised, squashes. `Gated`: `gate` says which elements are tallied and may be kept
// (a masked input's); a template argument, so the plain pass keeps its loops as they were.
// `KeepInTable`: the binning's table holds the decisions (a threshold's), so the count does not
// read them.
template <bool Gated, bool KeepInTable, class T, class KeepOf>
SPARSITY_ALWAYS_INLINE void tallyChunk(T *chunk,
                                       std::uint8_t *maskOut,
                                       const std::uint8_t *gate,
                                       std::int64_t n,
                                       bool squash,
                                       const Binning<T> &binning,
                                       LocalTally &local,
                                       KeepOf keepOf)
{
    using Binner = Binning<T>;
    std::array<std::uint8_t, kChunk> keeps;
    std::array<typename Binner::Region, kChunk> regions;
    std::int32_t nonzero = 0, keptNonzero = 0, kept = 0, held = 0; // narrow lanes vectorise better
    for (std::int64_t i = 0; i < n; ++i) {
        const T x = chunk[i];
        bool keep = keepOf(i, x);
        if constexpr (Gated) {
            const bool isSpecified = gate[i] != 0;
            keep = keep & isSpecified;
            held += isSpecified;
        }
        const bool isNonzero = x != T(0);
        nonzero += isNonzero;
        keptNonzero += keep & isNonzero;
        kept += keep;
        keeps[static_cast<std::size_t>(i)] = keep;
        regions[static_cast<std::size_t>(i)] = Binner::regionOf(x);
    }
    if constexpr (!Gated)
        held = static_cast<std::int32_t>(n);
    local.nnzBefore += nonzero;
    local.nnzAfter += keptNonzero;
    local.held += held;
    local.pruned += held - kept;
    if (maskOut)
        std::copy_n(keeps.begin(), n, maskOut);
    // Four copies of the counts, value i counted in copy i mod 4 (unrolled, so each copy is a
    // fixed address): consecutive values in one bin would otherwise wait on each other's
    // increment. 32 bits hold a chunk's counts and halve the counters' cache lines.
    std::uint32_t counts[4][LocalTally::kUncounted + 1] = {};
    const auto count = [&](std::int64_t i, std::uint32_t *copy) {
        const auto at = static_cast<std::size_t>(i);
        std::size_t slot = binning.slotOfRegion(regions[at]);
        if (slot >= Binner::kNotCounted) [[unlikely]] {
            if (slot == Binner::kNotCounted)
                return;
            const auto bin = binning.exactBin(chunk[i]);
            if (bin == Binner::kNotCounted)
                return;
            slot = 2 * std::size_t{bin} + keeps[at];
        } else if constexpr (!KeepInTable) {
            slot += keeps[at];
        }
        if constexpr (Gated)
            slot = gate[i] != 0 ? slot : LocalTally::kUncounted;
        ++copy[slot];
    };
    std::int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        count(i, counts[0]);
        count(i + 1, counts[1]);
        count(i + 2, counts[2]);
        count(i + 3, counts[3]);
    }
    for (; i < n; ++i)
        count(i, counts[0]);
    for (const auto &copy : counts)
        for (std::size_t slot = 0; slot < LocalTally::kUncounted; ++slot)
            local.counts[slot] += copy[slot];
    // A loop of its own: as a branch in the loop above, a mask as random as a threshold's (40%
    // pruned) mispredicted half the time, the most costly step.
    if (squash)
        for (std::int64_t k = 0; k < n; ++k)
            chunk[k] = keeps[static_cast<std::size_t>(k)] ? chunk[k] : T(0);
}

// The chunks of each kind of pass, compiled for AVX-512, AVX2 and baseline x86-64 (a quarter
// less time for the pass where AVX2 exists, docs/PERFORMANCE.md; every step is a compare, a
// select, an integer count or a minimum or maximum, the same at any width): non-template
// functions, as core/util/cpu_clones.h asks. `mask`: the chunk's decisions made before (n-m,
// row-norm, data-norm).
template <class T>
SPARSITY_ALWAYS_INLINE void thresholdChunkOf(T *chunk,
                                             std::uint8_t *maskOut,
                                             const std::uint8_t *gate,
                                             std::int64_t n,
                                             T threshold,
                                             bool squash,
                                             const Binning<T> &binning,
                                             LocalTally &local)
{
    // NaN compares false: kept.
    const auto keepOf = [threshold](std::int64_t, T x) { return !(std::abs(x) < threshold); };
    if (gate)
        tallyChunk<true, true>(chunk, maskOut, gate, n, squash, binning, local, keepOf);
    else
        tallyChunk<false, true>(chunk, maskOut, gate, n, squash, binning, local, keepOf);
}
template <class T>
SPARSITY_ALWAYS_INLINE void maskChunkOf(T *chunk,
                                        const std::uint8_t *mask,
                                        const std::uint8_t *gate,
                                        std::int64_t n,
                                        bool squash,
                                        const Binning<T> &binning,
                                        LocalTally &local)
{
    const auto keepOf = [mask](std::int64_t i, T) { return mask[i] != 0; };
    if (gate)
        tallyChunk<true, false>(chunk, nullptr, gate, n, squash, binning, local, keepOf);
    else
        tallyChunk<false, false>(chunk, nullptr, gate, n, squash, binning, local, keepOf);
}
// The finite minimum and maximum of a chunk, folded into lo and hi. In T and branch-free: a
// value that is not finite (NaN compares false) stands in as +inf for the minimum and -inf for
// the maximum. GCC does not vectorise a min/max reduction of floats by itself (it may not
// reorder them); `omp simd` allows it, and the order cannot change the result: no NaN enters,
// and bounds() makes a zero +0.
template <class T>
SPARSITY_ALWAYS_INLINE void finiteRangeChunkOf(const T *chunk, std::int64_t n, T &lo, T &hi)
{
    constexpr T kInf = std::numeric_limits<T>::infinity();
    T chunkLo = lo, chunkHi = hi;
#pragma omp simd reduction(min : chunkLo) reduction(max : chunkHi)
    for (std::int64_t i = 0; i < n; ++i) {
        const T v = chunk[i];
        const bool finite = std::abs(v) <= std::numeric_limits<T>::max();
        chunkLo = std::min(chunkLo, finite ? v : kInf);
        chunkHi = std::max(chunkHi, finite ? v : -kInf);
    }
    lo = chunkLo;
    hi = chunkHi;
}
// The three entry points of one element type. The range's AVX2 clone takes 0.040 s where the
// baseline took 0.068 s to read and range 256 MiB from the page cache (docs/PERFORMANCE.md,
// stop 62); its AVX-512 clone ranges 256 MiB in memory in two thirds of the AVX2 clone's time
// (stop 65).
#define SPARSITY_CHUNK_CLONES(T)                                                                                                 \
    SPARSITY_CPU_CLONES_ANY_WIDTH void finiteRangeChunk(const T *chunk, std::int64_t n, T &lo, T &hi)                            \
    {                                                                                                                            \
        finiteRangeChunkOf(chunk, n, lo, hi);                                                                                    \
    }                                                                                                                            \
    SPARSITY_CPU_CLONES_ANY_WIDTH void thresholdChunk(T *chunk, std::uint8_t *maskOut, const std::uint8_t *gate, std::int64_t n, \
                                                      T threshold, bool squash, const Binning<T> &binning, LocalTally &local)    \
    {                                                                                                                            \
        thresholdChunkOf(chunk, maskOut, gate, n, threshold, squash, binning, local);                                            \
    }                                                                                                                            \
    SPARSITY_CPU_CLONES_ANY_WIDTH void maskChunk(T *chunk, const std::uint8_t *mask, const std::uint8_t *gate, std::int64_t n,   \
                                                 bool squash, const Binning<T> &binning, LocalTally &local)                      \
    {                                                                                                                            \
        maskChunkOf(chunk, mask, gate, n, squash, binning, local);                                                               \
    }
SPARSITY_CHUNK_CLONES(float)
SPARSITY_CHUNK_CLONES(double)
#undef SPARSITY_CHUNK_CLONES

// An optional array (null: none) from element `first` on.
template <class P>
P *from(P *array, std::int64_t first)
{
    return array ? array + first : nullptr;
}

// One pass over `count` values in chunks: chunkAt(first, n, binning, local) tallies the chunk
// of n values from `first` into this thread's `local`. `threshold`: a threshold's pass's.
template <class T, class ChunkAt>
void tallyPass(std::int64_t count, SparsifyTally &tally, std::optional<T> threshold, ChunkAt chunkAt)
{
    const Binning<T> binning(tally, count, threshold);
    const std::int64_t chunks = (count + kChunk - 1) / kChunk;
#pragma omp parallel if (count >= kParallelFrom)
    {
        LocalTally local;
        // Dynamic: on a machine whose cores the I/O thread shares, a static share would wait for
        // the thread that shares its core.
#pragma omp for schedule(dynamic, 8) nowait
        for (std::int64_t c = 0; c < chunks; ++c) {
            const std::int64_t first = c * kChunk;
            chunkAt(first, std::min(kChunk, count - first), binning, local);
        }
#pragma omp critical(sparsity_tally)
        local.addTo(tally);
    }
}

} // namespace

std::pair<double, double> FiniteRange::bounds() const { return finiteBounds(lo, hi); }

template <class T>
void finiteRangeOf(const T *values, std::int64_t count, FiniteRange &range)
{
    constexpr T kInf = std::numeric_limits<T>::infinity();
    T lo = kInf, hi = -kInf;
    const std::int64_t chunks = (count + kChunk - 1) / kChunk;
#pragma omp parallel for reduction(min : lo) reduction(max : hi) schedule(dynamic, 32) if (count >= kParallelFrom)
    for (std::int64_t c = 0; c < chunks; ++c)
        finiteRangeChunk(values + c * kChunk, std::min(kChunk, count - c * kChunk), lo, hi);
    range.lo = std::min(range.lo, static_cast<double>(lo));
    range.hi = std::max(range.hi, static_cast<double>(hi));
}

template <class T>
void thresholdAndTally(T *values,
                       std::uint8_t *mask,
                       std::int64_t count,
                       T threshold,
                       bool squash,
                       SparsifyTally &tally,
                       const std::uint8_t *specified)
{
    tallyPass<T>(count, tally, threshold, [&](std::int64_t first, std::int64_t n, const Binning<T> &binning, LocalTally &local) {
        thresholdChunk(values + first, from(mask, first), from(specified, first), n, threshold, squash, binning, local);
    });
}

template <class T>
void thresholdAndTallyZeros(std::int64_t count, T threshold, SparsifyTally &tally)
{
    T zero{};
    SparsifyTally one({tally.lo, tally.hi});
    thresholdAndTally(&zero, nullptr, 1, threshold, false, one); // a zero adds to neither nonzero count
    tally.pruned += count * one.pruned;
    tally.held += count;
    for (std::size_t b = 0; b < SparsifyTally::kBins; ++b) {
        tally.before[b] += count * one.before[b];
        tally.after[b] += count * one.after[b];
    }
}

template <class T>
void applyMaskAndTally(
    T *values, const std::uint8_t *mask, std::int64_t count, bool squash, SparsifyTally &tally, const std::uint8_t *specified)
{
    tallyPass<T>(count, tally, std::nullopt,
                 [&](std::int64_t first, std::int64_t n, const Binning<T> &binning, LocalTally &local) {
                     maskChunk(values + first, mask + first, from(specified, first), n, squash, binning, local);
                 });
}

#define SPARSITY_INSTANTIATE(T)                                                                                                  \
    template void finiteRangeOf<T>(const T *, std::int64_t, FiniteRange &);                                                      \
    template void thresholdAndTally<T>(T *, std::uint8_t *, std::int64_t, T, bool, SparsifyTally &, const std::uint8_t *);       \
    template void thresholdAndTallyZeros<T>(std::int64_t, T, SparsifyTally &);                                                   \
    template void applyMaskAndTally<T>(T *, const std::uint8_t *, std::int64_t, bool, SparsifyTally &, const std::uint8_t *);
SPARSITY_INSTANTIATE(float)
SPARSITY_INSTANTIATE(double)
#undef SPARSITY_INSTANTIATE

} // namespace sparsity::core
