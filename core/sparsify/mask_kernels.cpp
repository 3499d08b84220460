#include "core/sparsify/mask_kernels.h"

#include "core/parallel/lowest_across_ranks.h"
#include "core/util/ordered_bits.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }
// Below this many elements a kernel runs on one thread: the block pipeline calls them on
// small blocks, where waking the team costs more than the work.
constexpr std::int64_t kParallelFrom = 1 << 15;

// Ascending with NaN last, as torch.sort orders; equal keys keep index order (stable sorts).
template <class T>
bool lessNanLast(T a, T b)
{
    if (std::isnan(a))
        return false;
    return std::isnan(b) || a < b;
}

} // namespace

template <class T>
void thresholdMask(const T *x, std::uint8_t *mask, std::int64_t count, T threshold)
{
#pragma omp parallel for simd schedule(static)
    for (std::int64_t i = 0; i < count; ++i)
        mask[i] = !(std::abs(x[i]) < threshold); // NaN compares false: kept
}

template <class T>
void thresholdSquash(const T *x, T *y, std::uint8_t *mask, std::int64_t count, T threshold)
{
#pragma omp parallel for simd schedule(static)
    for (std::int64_t i = 0; i < count; ++i) {
        const bool keep = !(std::abs(x[i]) < threshold);
        mask[i] = keep;
        y[i] = keep ? x[i] : T(0);
    }
}

template <class T>
void applyMask(T *values, const std::uint8_t *mask, std::int64_t count)
{
#pragma omp parallel for simd schedule(static)
    for (std::int64_t i = 0; i < count; ++i)
        values[i] = mask[i] ? values[i] : T(0);
}

std::int64_t countKept(const std::uint8_t *mask, std::int64_t count)
{
    std::int64_t kept = 0;
#pragma omp parallel for simd reduction(+ : kept) schedule(static)
    for (std::int64_t i = 0; i < count; ++i)
        kept += mask[i] != 0;
    return kept;
}

namespace {

// |x| as an unsigned key in lessNanLast's order: a non-negative value's bits ascend with it
// (-0 and +0 alike), and every NaN takes the largest key, so NaNs tie as lessNanLast has them.
template <class T>
OrderedBits<T> magnitudeKey(T x)
{
    using Bits = OrderedBits<T>;
    const Bits bits = std::bit_cast<Bits>(x) & ~(Bits{1} << (8 * sizeof(T) - 1));
    const Bits inf = std::bit_cast<Bits>(std::numeric_limits<T>::infinity());
    return bits > inf ? ~Bits{0} : bits;
}

// Groups of m from x: element i of a group is kept when fewer than n elements beat it, j
// beating i when its |x| is larger (NaN largest), or equal and j < i (ties to the lower index,
// as torch.topk keeps them). M > 0 fixes m at compile time, so a group's loops unroll and
// branch on nothing; M == 0 takes any m.
template <int M, class T>
void nmGroups(const T *x, std::uint8_t *mask, std::int64_t groups, std::int64_t n, std::int64_t m)
{
    if constexpr (M > 0)
        m = M;
#pragma omp parallel if (groups * m >= kParallelFrom)
    {
        std::vector<OrderedBits<T>> keys(M > 0 ? 0 : at(m));
        std::array<OrderedBits<T>, static_cast<std::size_t>(std::max(M, 1))> fixedKeys;
        OrderedBits<T> *key = M > 0 ? fixedKeys.data() : keys.data();
#pragma omp for schedule(static)
        for (std::int64_t g = 0; g < groups; ++g) {
            const T *v = x + g * m;
            for (std::int64_t i = 0; i < m; ++i)
                key[i] = magnitudeKey(v[i]);
            for (std::int64_t i = 0; i < m; ++i) {
                std::int64_t beaten = 0;
                for (std::int64_t j = 0; j < i; ++j)
                    beaten += key[j] >= key[i];
                for (std::int64_t j = i + 1; j < m; ++j)
                    beaten += key[j] > key[i];
                mask[g * m + i] = beaten < n;
            }
        }
    }
}

} // namespace

template <class T>
void nmMask(const T *x, std::uint8_t *mask, std::int64_t groups, std::int64_t n, std::int64_t m)
{
    // The common patterns unrolled: the sparsify command's compute at 2:4 on 8192 x 8192 went
    // from about 0.5 s to 0.14 s (docs/PERFORMANCE.md, "stop 60").
    switch (m) {
    case 4:
        return nmGroups<4>(x, mask, groups, n, m);
    case 8:
        return nmGroups<8>(x, mask, groups, n, m);
    case 16:
        return nmGroups<16>(x, mask, groups, n, m);
    default:
        return nmGroups<0>(x, mask, groups, n, m);
    }
}

template <class T>
void rowNorms(const T *x, double *norms, std::int64_t rows, std::int64_t width)
{
#pragma omp parallel for schedule(static) if (rows * width >= kParallelFrom)
    for (std::int64_t r = 0; r < rows; ++r) {
        double sum = 0.0;
        for (std::int64_t j = 0; j < width; ++j) {
            const double v = static_cast<double>(x[r * width + j]);
            sum += v * v;
        }
        norms[r] = std::sqrt(sum);
    }
}

// PyTorch's DataNormSparsifier.update_mask on one 2-d view, in its arithmetic: element norms
// |x| (L1) or x*x (L2) in T; block scores by avg_pool2d(ceil_mode=True), summed row-major in T
// and divided by the number of real entries; k = round-half-even(level * #blocks) lowest
// scores sparsified; inside those, the zeros_per_block smallest norms pruned.
template <class T>
void blockScoresInto(const T *x, std::int64_t height, std::int64_t width, const SparsifierConfig &config, T *scores)
{
    const auto bh = config.blockRows, bw = config.blockCols;
    const auto blockCols = config.blockColumnsIn(width), bands = config.bandsIn(height);
    const bool l1 = config.norm == BlockNorm::L1;
    // Band by band, so that no block's position is found by a division.
#pragma omp parallel for schedule(static) if (height * width >= kParallelFrom)
    for (std::int64_t band = 0; band < bands; ++band) {
        const auto r0 = band * bh, r1 = std::min(height, r0 + bh);
        T *out = scores + band * blockCols;
        for (std::int64_t bc = 0; bc < blockCols; ++bc) {
            const auto c0 = bc * bw, c1 = std::min(width, c0 + bw);
            T sum = T(0);
            for (auto r = r0; r < r1; ++r)
                for (auto c = c0; c < c1; ++c) {
                    const T v = x[r * width + c];
                    sum += l1 ? std::abs(v) : v * v;
                }
            out[bc] = sum / static_cast<T>((r1 - r0) * (c1 - c0));
        }
    }
}

template <class T>
std::vector<T> blockScores(const T *x, std::int64_t height, std::int64_t width, const SparsifierConfig &config)
{
    std::vector<T> scores(at(config.blocksIn(height, width)));
    blockScoresInto(x, height, width, config, scores.data());
    return scores;
}

template <class T>
std::int64_t dataNormMask(const T *x, std::uint8_t *mask, std::int64_t height, std::int64_t width, const SparsifierConfig &config)
{
    return dataNormMaskFromScores(x, mask, height, width, config, blockScores(x, height, width, config));
}

template <class T>
std::vector<std::uint8_t> sparsifiedBlocksAcrossRanks(const RankGroup &group, const std::vector<T> &scores, double sparsityLevel)
{
    const auto blocks = group.sum(static_cast<std::int64_t>(scores.size()));
    const auto sparsified = static_cast<std::int64_t>(std::nearbyint(sparsityLevel * static_cast<double>(blocks)));
    // The k lowest blocks by (score, index), NaN last.
    return lowestAcrossRanks(group, std::span<const T>(scores), sparsified);
}

template <class T>
std::vector<std::uint8_t> sparsifiedBlocks(const std::vector<T> &scores, double sparsityLevel)
{
    return sparsifiedBlocksAcrossRanks(SoloRanks(), scores, sparsityLevel);
}

std::vector<std::uint8_t> rowsKeptAcrossRanks(const RankGroup &group, const std::vector<double> &norms, double keepFraction)
{
    const auto rows = group.sum(static_cast<std::int64_t>(norms.size()));
    const auto keep = static_cast<std::int64_t>(std::nearbyint(keepFraction * static_cast<double>(rows)));
    // The largest norms are the lowest negated ones; a NaN stays last.
    std::vector<double> keys(norms.size());
    std::transform(norms.begin(), norms.end(), keys.begin(), [](double n) { return -n; });
    return lowestAcrossRanks(group, std::span<const double>(keys), keep);
}

template <class T>
void dataNormMaskForBlocks(const T *x,
                           std::uint8_t *mask,
                           std::int64_t height,
                           std::int64_t width,
                           const SparsifierConfig &config,
                           const std::uint8_t *sparsified)
{
    const auto bh = config.blockRows, bw = config.blockCols;
    const auto blockCols = config.blockColumnsIn(width), bands = config.bandsIn(height);
    const bool l1 = config.norm == BlockNorm::L1;
    auto norm = [&](std::int64_t r, std::int64_t c) {
        const T v = x[r * width + c];
        return l1 ? std::abs(v) : v * v;
    };
    const auto zeros = config.resolvedZerosPerBlock();
    const bool wholeBlocks = zeros >= bh * bw;
    // Band by band, each of the band's mask rows written once.
#pragma omp parallel for schedule(static) if (height * width >= kParallelFrom)
    for (std::int64_t band = 0; band < bands; ++band) {
        const auto r0 = band * bh, r1 = std::min(height, r0 + bh);
        const std::uint8_t *flags = sparsified + band * blockCols;
        if (wholeBlocks) { // a sparsified block's entries are all pruned
            for (auto r = r0; r < r1; ++r)
                for (std::int64_t bc = 0; bc < blockCols; ++bc) {
                    const auto c0 = bc * bw, c1 = std::min(width, c0 + bw);
                    std::fill(mask + r * width + c0, mask + r * width + c1, static_cast<std::uint8_t>(flags[bc] == 0));
                }
            continue;
        }
        std::fill(mask + r0 * width, mask + r1 * width, std::uint8_t{1});
        for (std::int64_t bc = 0; bc < blockCols; ++bc) {
            if (!flags[bc])
                continue;
            const auto c0 = bc * bw, c1 = std::min(width, c0 + bw);
            // Entries in unfold order (row-major inside the block); padding would sort last, so
            // an edge block just has fewer candidates.
            thread_local std::vector<std::int64_t> entries;
            entries.clear();
            for (auto r = r0; r < r1; ++r)
                for (auto c = c0; c < c1; ++c)
                    entries.push_back(r * width + c);
            std::stable_sort(entries.begin(), entries.end(), [&](auto a, auto b2) {
                return lessNanLast(norm(a / width, a % width), norm(b2 / width, b2 % width));
            });
            const auto pruned = std::min<std::int64_t>(zeros, static_cast<std::int64_t>(entries.size()));
            for (std::int64_t e = 0; e < pruned; ++e)
                mask[entries[at(e)]] = 0;
        }
    }
}

template <class T>
std::int64_t dataNormMaskFromScores(const T *x,
                                    std::uint8_t *mask,
                                    std::int64_t height,
                                    std::int64_t width,
                                    const SparsifierConfig &config,
                                    const std::vector<T> &scores)
{
    const auto flags = sparsifiedBlocks(scores, config.sparsityLevel);
    dataNormMaskForBlocks(x, mask, height, width, config, flags.data());
    return std::count(flags.begin(), flags.end(), std::uint8_t{1});
}

#define SPARSITY_INSTANTIATE(T)                                                                                                  \
    template void thresholdMask<T>(const T *, std::uint8_t *, std::int64_t, T);                                                  \
    template void applyMask<T>(T *, const std::uint8_t *, std::int64_t);                                                         \
    template void thresholdSquash<T>(const T *, T *, std::uint8_t *, std::int64_t, T);                                           \
    template void nmMask<T>(const T *, std::uint8_t *, std::int64_t, std::int64_t, std::int64_t);                                \
    template void rowNorms<T>(const T *, double *, std::int64_t, std::int64_t);                                                  \
    template std::int64_t dataNormMask<T>(const T *, std::uint8_t *, std::int64_t, std::int64_t, const SparsifierConfig &);      \
    template std::vector<T> blockScores<T>(const T *, std::int64_t, std::int64_t, const SparsifierConfig &);                     \
    template void blockScoresInto<T>(const T *, std::int64_t, std::int64_t, const SparsifierConfig &, T *);                      \
    template std::int64_t dataNormMaskFromScores<T>(const T *, std::uint8_t *, std::int64_t, std::int64_t,                       \
                                                    const SparsifierConfig &, const std::vector<T> &);                           \
    template std::vector<std::uint8_t> sparsifiedBlocks<T>(const std::vector<T> &, double);                                      \
    template std::vector<std::uint8_t> sparsifiedBlocksAcrossRanks<T>(const RankGroup &, const std::vector<T> &, double);        \
    template void dataNormMaskForBlocks<T>(const T *, std::uint8_t *, std::int64_t, std::int64_t, const SparsifierConfig &,      \
                                           const std::uint8_t *);
SPARSITY_INSTANTIATE(float)
SPARSITY_INSTANTIATE(double)
#undef SPARSITY_INSTANTIATE

} // namespace sparsity::core
