// The one-pass sparsify report (core/sparsify/sparsify_tally.h) against the whole-tensor
// computations it replaces: finiteRange(), histogram() with and without the mask, nonzero
// and kept counts, thresholdSquash() and applyMask() — equal, bin for bin and bit for bit,
// however the tensor is cut into blocks, on values that sit exactly on bin edges, NaN, Inf,
// signed zeros and a constant tensor.
#include "core/sparsify/mask_kernels.h"
#include "core/sparsify/sparsify_tally.h"
#include "core/tensor/histogram.h"

#include <QTest>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace sparsity;

class TestSparsifyTally : public QObject {
    Q_OBJECT

private slots:
    void thresholdFloat();
    void thresholdDouble();
    void givenMaskFloat();
    void givenMaskDouble();
    void constantAndEmpty();
    void regionTableFloat();
    void regionTableDouble();
    void negativeZerosAtALeastBoundOfZeroFloat();
    void negativeZerosAtALeastBoundOfZeroDouble();
    void zerosTalliedAsOneValue();
    void specifiedElementsAloneFloat();
    void specifiedElementsAloneDouble();
    void rangesWhoseWidthIsNotANormalDouble();
};

namespace {

// Normal values, values on and one ulp around every bin edge of their range, and specials.
template <class T>
std::vector<T> awkwardValues(std::size_t count, unsigned seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<T> v(count);
    for (auto &x : v)
        x = static_cast<T>(normal(rng));
    v[0] = T(-3.5);
    v[1] = T(4.25); // the range is [-3.5, 4.25]: bin width 0.2421875, edges exact in T
    const double lo = -3.5, width = (4.25 - lo) / 32;
    std::size_t at = 2;
    for (int k = 0; k <= 32 && at + 3 < count; ++k) {
        const auto edge = static_cast<T>(lo + k * width);
        v[at++] = edge;
        v[at++] = std::nextafter(edge, T(-10));
        v[at++] = std::nextafter(edge, T(10));
    }
    const T specials[] = {std::numeric_limits<T>::quiet_NaN(),
                          std::numeric_limits<T>::infinity(),
                          -std::numeric_limits<T>::infinity(),
                          T(0),
                          T(-0.0),
                          T(0.5),
                          T(-0.5),
                          std::numeric_limits<T>::denorm_min(),
                          -std::numeric_limits<T>::denorm_min(),
                          std::numeric_limits<T>::min()};
    for (const T s : specials)
        if (at < count)
            v[at++] = s;
    std::shuffle(v.begin(), v.end(), rng);
    return v;
}

std::int64_t nonzeros(const auto &v)
{
    std::int64_t n = 0;
    for (auto x : v)
        n += x != 0;
    return n;
}

// Runs `tallyBlock(begin, count, tally)` over blocks of `block` elements after the range pass.
template <class T, class TallyBlock>
core::SparsifyTally inBlocks(std::vector<T> &values, std::int64_t block, TallyBlock tallyBlock)
{
    core::FiniteRange range;
    const auto total = static_cast<std::int64_t>(values.size());
    for (std::int64_t b = 0; b < total; b += block)
        core::finiteRangeOf(values.data() + b, std::min(block, total - b), range);
    core::SparsifyTally tally(range.bounds());
    for (std::int64_t b = 0; b < total; b += block)
        tallyBlock(b, std::min(block, total - b), tally);
    return tally;
}

template <class T>
void compareWithWholeTensor(const std::vector<T> &original,
                            const std::vector<std::uint8_t> &mask,
                            const std::vector<T> &squashed,
                            const std::vector<T> &ours,
                            const core::SparsifyTally &tally)
{
    const auto n = static_cast<std::int64_t>(original.size());
    const auto [lo, hi] = core::finiteRange(original.data(), n);
    QCOMPARE(tally.lo, lo);
    QCOMPARE(tally.hi, hi);
    QCOMPARE(tally.histogramBefore().counts, core::histogram(original.data(), n, 32, lo, hi).counts);
    QCOMPARE(tally.histogramAfter().counts, core::histogram(original.data(), n, 32, lo, hi, mask.data()).counts);
    QCOMPARE(tally.nnzBefore, nonzeros(original));
    QCOMPARE(tally.nnzAfter, nonzeros(squashed));
    QCOMPARE(tally.pruned, n - core::countKept(mask.data(), n));
    QCOMPARE(std::memcmp(ours.data(), squashed.data(), sizeof(T) * ours.size()), 0);
}

template <class T>
void thresholdMatchesWholeTensor()
{
    const auto original = awkwardValues<T>(10007, 7);
    const auto n = static_cast<std::int64_t>(original.size());
    std::vector<std::uint8_t> mask(original.size());
    std::vector<T> squashed(original.size());
    core::thresholdSquash(original.data(), squashed.data(), mask.data(), n, T(0.5));
    for (const std::int64_t block : {std::int64_t{1}, std::int64_t{97}, std::int64_t{4096}, n}) {
        auto values = original;
        std::vector<std::uint8_t> ourMask(original.size(), 7);
        const auto tally = inBlocks(values, block, [&](std::int64_t b, std::int64_t count, core::SparsifyTally &t) {
            core::thresholdAndTally(values.data() + b, ourMask.data() + b, count, T(0.5), true, t);
        });
        compareWithWholeTensor(original, mask, squashed, values, tally);
        QCOMPARE(ourMask, mask);
        // Masked output: the values stay, the report is the same.
        auto kept = original;
        const auto unsquashed = inBlocks(kept, block, [&](std::int64_t b, std::int64_t count, core::SparsifyTally &t) {
            core::thresholdAndTally(kept.data() + b, static_cast<std::uint8_t *>(nullptr), count, T(0.5), false, t);
        });
        QCOMPARE(std::memcmp(kept.data(), original.data(), sizeof(T) * kept.size()), 0);
        QCOMPARE(unsquashed.histogramAfter().counts, tally.histogramAfter().counts);
        QCOMPARE(unsquashed.nnzAfter, tally.nnzAfter);
    }
}

template <class T>
void givenMaskMatchesWholeTensor()
{
    const auto original = awkwardValues<T>(4096, 11);
    const auto n = static_cast<std::int64_t>(original.size());
    std::vector<std::uint8_t> mask(original.size());
    core::nmMask(original.data(), mask.data(), n / 4, 2, 4);
    auto squashed = original;
    core::applyMask(squashed.data(), mask.data(), n);
    for (const std::int64_t block : {std::int64_t{4}, std::int64_t{1000}, n}) {
        auto values = original;
        const auto tally = inBlocks(values, block, [&](std::int64_t b, std::int64_t count, core::SparsifyTally &t) {
            core::applyMaskAndTally(values.data() + b, mask.data() + b, count, true, t);
        });
        compareWithWholeTensor(original, mask, squashed, values, tally);
    }
}

// A masked input (sparsify_file.cpp's whole path): values 0 where unspecified, every element in
// the range, its specified ones alone held, binned and kept; its mask the method's and the
// specified elements'. Large enough for the region table, and in blocks of one element too.
template <class T>
void specifiedElementsAlone()
{
    auto original = awkwardValues<T>(140000, 13);
    const auto n = static_cast<std::int64_t>(original.size());
    std::mt19937 rng(5);
    std::vector<std::uint8_t> specified(original.size());
    for (std::size_t i = 0; i < specified.size(); ++i) {
        specified[i] = (rng() % 3) != 0;
        if (!specified[i])
            original[i] = T(0);
    }
    const auto [lo, hi] = core::finiteRange(original.data(), n);
    std::vector<std::uint8_t> thresholdMask(original.size()), nmMask(original.size());
    std::vector<T> ignored(original.size());
    core::thresholdSquash(original.data(), ignored.data(), thresholdMask.data(), n, T(0.5));
    core::nmMask(original.data(), nmMask.data(), n / 4, 2, 4);
    for (auto *mask : {&thresholdMask, &nmMask})
        for (std::size_t i = 0; i < mask->size(); ++i)
            (*mask)[i] = (*mask)[i] && specified[i];
    const auto held = core::countKept(specified.data(), n);
    const auto expect = [&](const core::SparsifyTally &tally, const std::vector<std::uint8_t> &mask) {
        QCOMPARE(tally.lo, lo);
        QCOMPARE(tally.hi, hi);
        QCOMPARE(tally.held, held);
        QCOMPARE(tally.pruned, held - core::countKept(mask.data(), n));
        QCOMPARE(tally.nnzBefore, nonzeros(original));
        auto squashed = original;
        core::applyMask(squashed.data(), mask.data(), n);
        QCOMPARE(tally.nnzAfter, nonzeros(squashed));
        QCOMPARE(tally.histogramBefore().counts, core::histogram(original.data(), n, 32, lo, hi, specified.data()).counts);
        QCOMPARE(tally.histogramAfter().counts, core::histogram(original.data(), n, 32, lo, hi, mask.data()).counts);
    };
    for (const std::int64_t block : {std::int64_t{1}, std::int64_t{4096}, n}) {
        auto values = original;
        std::vector<std::uint8_t> ourMask(original.size(), 7);
        expect(inBlocks(values, block,
                        [&](std::int64_t b, std::int64_t count, core::SparsifyTally &t) {
                            core::thresholdAndTally(values.data() + b, ourMask.data() + b, count, T(0.5), false, t,
                                                    specified.data() + b);
                        }),
               thresholdMask);
        QCOMPARE(ourMask, thresholdMask);
        values = original;
        expect(inBlocks(values, block,
                        [&](std::int64_t b, std::int64_t count, core::SparsifyTally &t) {
                            core::applyMaskAndTally(values.data() + b, nmMask.data() + b, count, true, t, specified.data() + b);
                        }),
               nmMask);
    }
}

// Large enough for the pass's region table (core/sparsify/sparsify_tally.cpp): most values
// are binned by their key's region, the rest exactly. Ranges wide and narrow, so that regions
// are whole bins, cut by edges, by lo or hi, or hold the whole range. A threshold's table holds
// its decisions too: thresholds that cut a region, that begin one (1 is a region's first key),
// that keep every value (0) and that prune every finite one (inf), each with values on it and one
// ulp either side.
template <class T>
void regionTableMatchesWholeTensor()
{
    const std::size_t count = (std::size_t{1} << 20) + 4099; // 4x the double table, and a ragged tail
    for (const double scale : {1.0, 1e-3, 1e30, 1e-40}) {
        auto scaled = awkwardValues<T>(count, 5);
        for (std::size_t i = 100; i < count; ++i) // the awkward values stay; the rest are scaled
            scaled[i] = static_cast<T>(static_cast<double>(scaled[i]) * scale);
        for (const double factor : {0.5, 1.0, 0.0, std::numeric_limits<double>::infinity()}) {
            const auto threshold = static_cast<T>(factor * scale);
            auto original = scaled;
            std::size_t at = 100;
            for (const T edge : {threshold, -threshold})
                for (const T v : {edge, std::nextafter(edge, T(0)), std::nextafter(edge, edge < 0 ? T(-1e30) : T(1e30))})
                    original[at++] = std::isinf(v) ? T(0) : v;
            const auto n = static_cast<std::int64_t>(original.size());
            std::vector<std::uint8_t> mask(original.size());
            std::vector<T> squashed(original.size());
            core::thresholdSquash(original.data(), squashed.data(), mask.data(), n, threshold);
            for (const std::int64_t block : {n, std::int64_t{300007}}) {
                auto values = original;
                const auto tally = inBlocks(values, block, [&](std::int64_t b, std::int64_t c, core::SparsifyTally &t) {
                    core::thresholdAndTally(values.data() + b, static_cast<std::uint8_t *>(nullptr), c, threshold, true, t);
                });
                compareWithWholeTensor(original, mask, squashed, values, tally);
            }
        }
    }
}

// Values >= 0 with many -0: the range starts at +0, and -0's key lies in the region below +0's.
// The table must still count every -0 in the first bin, as histogram() does (it dropped them).
template <class T>
void negativeZerosAtALeastBoundOfZero()
{
    auto original = awkwardValues<T>((std::size_t{1} << 20) + 17, 13);
    for (std::size_t i = 0; i < original.size(); ++i)
        original[i] = i % 7 == 0 ? T(-0.0) : std::abs(original[i]);
    const auto n = static_cast<std::int64_t>(original.size());
    std::vector<std::uint8_t> mask(original.size());
    std::vector<T> squashed(original.size());
    core::thresholdSquash(original.data(), squashed.data(), mask.data(), n, T(0.5));
    auto values = original;
    const auto tally = inBlocks(values, n, [&](std::int64_t b, std::int64_t c, core::SparsifyTally &t) {
        core::thresholdAndTally(values.data() + b, static_cast<std::uint8_t *>(nullptr), c, T(0.5), true, t);
    });
    QCOMPARE(tally.lo, 0.0);
    compareWithWholeTensor(original, mask, squashed, values, tally);
}

} // namespace

void TestSparsifyTally::negativeZerosAtALeastBoundOfZeroFloat() { negativeZerosAtALeastBoundOfZero<float>(); }
void TestSparsifyTally::negativeZerosAtALeastBoundOfZeroDouble() { negativeZerosAtALeastBoundOfZero<double>(); }

// A sparse input's unstored zeros tallied as one value counted many times: the tally of the
// stored values and the zeros together, for thresholds that prune a zero and that keep it.
void TestSparsifyTally::zerosTalliedAsOneValue()
{
    const auto stored = awkwardValues<float>(5003, 17);
    const std::int64_t zeros = 20000;
    for (const float threshold : {0.5f, 0.0f}) {
        auto whole = stored;
        whole.resize(stored.size() + zeros, 0.0f);
        const auto n = static_cast<std::int64_t>(whole.size());
        std::vector<std::uint8_t> mask(whole.size());
        std::vector<float> squashed(whole.size());
        core::thresholdSquash(whole.data(), squashed.data(), mask.data(), n, threshold);
        auto values = stored;
        core::FiniteRange range;
        core::finiteRangeOf(values.data(), static_cast<std::int64_t>(values.size()), range);
        range.lo = std::min(range.lo, 0.0);
        range.hi = std::max(range.hi, 0.0);
        core::SparsifyTally tally(range.bounds());
        core::thresholdAndTally(values.data(), static_cast<std::uint8_t *>(nullptr), static_cast<std::int64_t>(values.size()),
                                threshold, true, tally);
        core::thresholdAndTallyZeros(zeros, threshold, tally);
        values.resize(whole.size(), 0.0f);
        compareWithWholeTensor(whole, mask, squashed, values, tally);
    }
}

// Doubles whose range is wider than the largest double (hi - lo overflows: its bins were NaN,
// and the command crashed) or so narrow that its width is subnormal: binned at a scale
// (core/tensor/histogram.h's HistogramBins), the bins as counted here by hand. Each set alone
// (binned exactly) and repeated past the region table's size, thresholds that keep all, some
// and none.
void TestSparsifyTally::rangesWhoseWidthIsNotANormalDouble()
{
    constexpr double kMax = std::numeric_limits<double>::max(), kLeast = std::numeric_limits<double>::denorm_min();
    // Across +-DBL_MAX, the bins are DBL_MAX / 16 wide: 0 opens bin 16, and DBL_MAX, the top
    // edge, is in the last bin.
    const std::vector<double> wide = {-kMax, -1e300, 0.0, 1e300, kMax};
    const std::vector<std::int64_t> wideBins = {0, 15, 16, 16, 31};
    // k * 4.9e-324 for k in [0, 40]: bins 1.25 of them wide, so k lies in bin floor(4k / 5).
    std::vector<double> narrow;
    std::vector<std::int64_t> narrowBins;
    for (int k = 0; k <= 40; ++k) {
        narrow.push_back(k * kLeast);
        narrowBins.push_back(std::min(4 * k / 5, 31));
    }
    for (const auto &[set, bins] : {std::pair{wide, wideBins}, std::pair{narrow, narrowBins}}) {
        std::vector<std::int64_t> expected(32, 0);
        for (const auto bin : bins)
            ++expected[static_cast<std::size_t>(bin)];
        for (const std::size_t copies : {std::size_t{1}, (std::size_t{1} << 20) / set.size() + 1}) {
            std::vector<double> original;
            for (std::size_t c = 0; c < copies; ++c)
                original.insert(original.end(), set.begin(), set.end());
            const auto n = static_cast<std::int64_t>(original.size());
            for (const double threshold : {0.0, set[set.size() / 2 + 1], std::numeric_limits<double>::infinity()}) {
                std::vector<std::uint8_t> mask(original.size());
                std::vector<double> squashed(original.size());
                core::thresholdSquash(original.data(), squashed.data(), mask.data(), n, threshold);
                auto values = original;
                const auto tally = inBlocks(values, n, [&](std::int64_t b, std::int64_t c, core::SparsifyTally &t) {
                    core::thresholdAndTally(values.data() + b, static_cast<std::uint8_t *>(nullptr), c, threshold, true, t);
                });
                compareWithWholeTensor(original, mask, squashed, values, tally);
                auto counted = expected;
                for (auto &count : counted)
                    count *= static_cast<std::int64_t>(copies);
                QCOMPARE(tally.before, counted);
            }
        }
    }
}

void TestSparsifyTally::regionTableFloat() { regionTableMatchesWholeTensor<float>(); }
void TestSparsifyTally::regionTableDouble() { regionTableMatchesWholeTensor<double>(); }

void TestSparsifyTally::thresholdFloat() { thresholdMatchesWholeTensor<float>(); }
void TestSparsifyTally::thresholdDouble() { thresholdMatchesWholeTensor<double>(); }
void TestSparsifyTally::givenMaskFloat() { givenMaskMatchesWholeTensor<float>(); }
void TestSparsifyTally::givenMaskDouble() { givenMaskMatchesWholeTensor<double>(); }

void TestSparsifyTally::specifiedElementsAloneFloat() { specifiedElementsAlone<float>(); }
void TestSparsifyTally::specifiedElementsAloneDouble() { specifiedElementsAlone<double>(); }

void TestSparsifyTally::constantAndEmpty()
{
    std::vector<float> constant(100, 2.0f);
    std::vector<std::uint8_t> mask(constant.size());
    auto squashed = constant;
    core::thresholdSquash(constant.data(), squashed.data(), mask.data(), 100, 3.0f);
    auto values = constant;
    const auto tally = inBlocks(values, 33, [&](std::int64_t b, std::int64_t count, core::SparsifyTally &t) {
        core::thresholdAndTally(values.data() + b, static_cast<std::uint8_t *>(nullptr), count, 3.0f, true, t);
    });
    compareWithWholeTensor(constant, mask, squashed, values, tally);
    QCOMPARE(tally.histogramBefore().counts[0], std::int64_t{100});

    std::vector<double> none{std::nan(""), std::numeric_limits<double>::infinity()};
    core::FiniteRange range;
    core::finiteRangeOf(none.data(), 2, range);
    QCOMPARE(range.bounds(), (std::pair{0.0, 0.0}));
    QCOMPARE(core::finiteRange(none.data(), 2), range.bounds());
}

QTEST_GUILESS_MAIN(TestSparsifyTally)
#include "tst_sparsify_tally.moc"
