#pragma once
// The sparsify report of a tensor (nonzeros before and after, pruned count, histograms before
// and after over the finite range) computed in the same pass that applies the mask, a block
// at a time: what the in-memory path computes in seven passes (docs/PERFORMANCE.md), to the
// same numbers. Blocks may come in any order and tallies add up exactly (integer counts).
//
// The histogram range is a global choice, so it is found first (finiteRangeOf, combined over
// blocks); the bins are then those of core/tensor/histogram.h for that range.
#include "core/tensor/histogram.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace sparsity::core {

// min/max of the finite values seen so far; +inf/-inf before any.
struct FiniteRange {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    // The range histogram() is given: (0, 0) when no value was finite, as finiteRange().
    std::pair<double, double> bounds() const;
};

// Widens `range` by the finite values of values[0, count) (parallel).
template <class T>
void finiteRangeOf(const T *values, std::int64_t count, FiniteRange &range);

struct SparsifyTally {
    static constexpr int kBins = 32;
    double lo = 0.0, hi = 0.0;
    std::int64_t nnzBefore = 0; // nonzero inputs (NaN counts)
    std::int64_t nnzAfter = 0;  // nonzero inputs the mask keeps
    std::int64_t pruned = 0;    // elements the mask removes
    std::int64_t held = 0;      // elements tallied: every one, or a masked input's specified ones
    std::vector<std::int64_t> before = std::vector<std::int64_t>(kBins), after = std::vector<std::int64_t>(kBins);

    SparsifyTally() = default;
    explicit SparsifyTally(std::pair<double, double> bounds) : lo(bounds.first), hi(bounds.second) {}
    Histogram histogramBefore() const { return {lo, hi, before}; }
    Histogram histogramAfter() const { return {lo, hi, after}; }
};

// `specified` (null: every element) marks a masked input's specified elements, its others
// holding 0 (docs/CLI.md, "sparsify"): an unspecified element is never kept, and is neither
// held, pruned nor binned, as the whole-tensor path counts it.

// Threshold in one pass: keep = !(|x| < threshold) (NaN kept); writes keep to mask[i] when
// `mask` is given, sets pruned values to 0 when `squash`, and tallies.
template <class T>
void thresholdAndTally(T *values,
                       std::uint8_t *mask,
                       std::int64_t count,
                       T threshold,
                       bool squash,
                       SparsifyTally &tally,
                       const std::uint8_t *specified = nullptr);

// Tallies `count` zeros as thresholdAndTally tallies each (a sparse input's unstored elements:
// one value, so one decision and one bin, counted `count` times).
template <class T>
void thresholdAndTallyZeros(std::int64_t count, T threshold, SparsifyTally &tally);

// A mask computed before (n-m, row-norm, data-norm): tallies and, when `squash`, sets pruned
// values to 0. With `specified`, the mask must keep no unspecified element.
template <class T>
void applyMaskAndTally(T *values,
                       const std::uint8_t *mask,
                       std::int64_t count,
                       bool squash,
                       SparsifyTally &tally,
                       const std::uint8_t *specified = nullptr);

} // namespace sparsity::core
