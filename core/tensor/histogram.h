#pragma once
// Value histograms: equal-width bins over [lo, hi] (the last bin closed). Used by the
// sparsify report (before/after) and the GUI's histogram view. NaN and values outside the
// range are not counted.
#include <cstdint>
#include <vector>

namespace sparsity::core {

struct Histogram {
    double lo = 0.0, hi = 0.0;
    std::vector<std::int64_t> counts;
};

// `mask` (optional): only elements with mask[i] != 0 are counted.
template <class T>
Histogram histogram(const T *values, std::int64_t count, int bins, double lo, double hi, const std::uint8_t *mask = nullptr);
// The range of the finite values (0, 0 when there are none).
template <class T>
std::pair<double, double> finiteRange(const T *values, std::int64_t count);
// The range finiteRange() gives for a least finite value `lo` and a greatest `hi`, found in any
// order (lo > hi: none was finite). A zero bound is +0: which of -0 and +0 a pass met first
// must not show in a report.
std::pair<double, double> finiteBounds(double lo, double hi);

} // namespace sparsity::core
