#include "ui/views/row_overview.h"

#include <algorithm>
#include <cmath>

namespace sparsity::ui {

RowOverview::RowOverview(std::int64_t totalRows, std::int64_t cols, std::int64_t maxBins)
    : m_totalRows(totalRows),
      m_rowsPerBin(std::max<std::int64_t>(1, (totalRows + maxBins - 1) / std::max<std::int64_t>(maxBins, 1)))
{
    const std::int64_t bins = (totalRows + m_rowsPerBin - 1) / m_rowsPerBin;
    m_values.shape = {bins, cols};
    m_values.values.assign(static_cast<std::size_t>(bins * cols), 0.0);
}

template <class T>
void RowOverview::addRows(std::int64_t firstRow, const T *values, std::int64_t count)
{
    const std::int64_t cols = m_values.shape.at(1);
    const std::int64_t rows = cols > 0 ? count / cols : 0;
    for (std::int64_t r = 0; r < rows; ++r) {
        const auto bin = static_cast<std::size_t>((firstRow + r) / m_rowsPerBin);
        double *out = m_values.values.data() + bin * static_cast<std::size_t>(cols);
        const T *in = values + r * cols;
        for (std::int64_t c = 0; c < cols; ++c) {
            const auto v = static_cast<double>(in[c]);
            // Keep the larger magnitude; a NaN or Inf replaces any finite value and stays. One
            // compare decides the common case; finiteness is tested after it.
            if (std::abs(v) > std::abs(out[c]) ? std::isfinite(out[c]) : (!std::isfinite(v) && std::isfinite(out[c])))
                out[c] = v;
        }
    }
    m_rowsAdded += rows;
}

template void RowOverview::addRows(std::int64_t, const float *, std::int64_t);
template void RowOverview::addRows(std::int64_t, const double *, std::int64_t);

} // namespace sparsity::ui
