#include "core/tensor/histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sparsity::core {

template <class T>
Histogram histogram(const T *values, std::int64_t count, int bins, double lo, double hi, const std::uint8_t *mask)
{
    Histogram h{lo, hi, std::vector<std::int64_t>(static_cast<std::size_t>(std::max(bins, 1)), 0)};
    const HistogramBins binning(lo, hi, static_cast<int>(h.counts.size()));
    for (std::int64_t i = 0; i < count; ++i) {
        const double v = static_cast<double>(values[i]);
        if ((mask && !mask[i]) || !(v >= lo && v <= hi))
            continue;
        ++h.counts[static_cast<std::size_t>(binning.binOf(v))];
    }
    return h;
}

HistogramBins::HistogramBins(double lo, double hi, int bins) : m_lo(lo), m_bins(std::max(bins, 1))
{
    if (!(hi > lo))
        return;
    const auto widthAt = [&](double scale) { return (hi * scale - lo * scale) / static_cast<double>(m_bins); };
    m_width = widthAt(1.0);
    if (std::isinf(m_width)) // |hi|, |lo| <= DBL_MAX: their halves' difference is finite
        m_scale = 0.5;
    else if (m_width < std::numeric_limits<double>::min()) // hi and lo within 2^-960 of 0: scaled exactly
        m_scale = 0x1p64;
    m_width = widthAt(m_scale);
}

template <class T>
std::pair<double, double> finiteRange(const T *values, std::int64_t count)
{
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::int64_t i = 0; i < count; ++i)
        if (std::isfinite(values[i])) {
            lo = std::min(lo, static_cast<double>(values[i]));
            hi = std::max(hi, static_cast<double>(values[i]));
        }
    return finiteBounds(lo, hi);
}

std::pair<double, double> finiteBounds(double lo, double hi)
{
    return lo <= hi ? std::pair{lo + 0.0, hi + 0.0} : std::pair{0.0, 0.0}; // -0 + 0 is +0
}

template Histogram histogram<float>(const float *, std::int64_t, int, double, double, const std::uint8_t *);
template Histogram histogram<double>(const double *, std::int64_t, int, double, double, const std::uint8_t *);
template std::pair<double, double> finiteRange<float>(const float *, std::int64_t);
template std::pair<double, double> finiteRange<double>(const double *, std::int64_t);

} // namespace sparsity::core
