#pragma once
// Value histograms: equal-width bins over [lo, hi] (the last bin closed). Used by the
// sparsify report (before/after) and the GUI's histogram view. NaN and values outside the
// range are not counted.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sparsity::core {

struct Histogram {
    double lo = 0.0, hi = 0.0;
    std::vector<std::int64_t> counts;
};

// The bins of a histogram: bin(v) = min(floor((v - lo) / width), bins - 1) for v in [lo, hi],
// width = (hi - lo) / bins (1 when hi == lo). Where that width is not a normal double (a range
// of doubles wider than the largest double, whose difference overflows, or one so narrow that
// its width is subnormal) every difference and the width are taken at a scale (a power of two,
// so the scaled values are the values' own) at which it is: no bin is then NaN or infinite.
// The sparsify report's tally bins with these (core/sparsify/sparsify_tally.cpp).
class HistogramBins {
public:
    HistogramBins(double lo, double hi, int bins);
    // (v - lo) at the scale, and the width at the same scale.
    double offset(double v) const { return v * m_scale - m_lo * m_scale; }
    double width() const { return m_width; }
    // Where bin b begins (b = bins: hi), taken at the scale so that it is finite.
    double edge(int b) const { return (m_lo * m_scale + b * m_width) / m_scale; }
    // Of a value in [lo, hi].
    int binOf(double v) const
    {
        return static_cast<int>(std::min(static_cast<std::size_t>(offset(v) / m_width), static_cast<std::size_t>(m_bins - 1)));
    }

private:
    double m_lo, m_scale = 1.0, m_width = 1.0;
    int m_bins;
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
