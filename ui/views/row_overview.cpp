#include "ui/views/row_overview.h"

#include <algorithm>
#include <cmath>

namespace sparsity::ui {

namespace {

// Items per bin so that `count` items fall into at most `maxBins` bins.
std::int64_t perBin(std::int64_t count, std::int64_t maxBins)
{
    return std::max<std::int64_t>(1, (count + maxBins - 1) / std::max<std::int64_t>(maxBins, 1));
}

// Keeps the larger magnitude in `out`; a NaN or Inf replaces any finite value and stays. One
// compare decides the common case; finiteness is tested after it.
inline void pool(double &out, double v)
{
    if (std::abs(v) > std::abs(out) ? std::isfinite(out) : (!std::isfinite(v) && std::isfinite(out)))
        out = v;
}

} // namespace

RowOverview::RowOverview(std::int64_t totalRows, std::int64_t cols, std::int64_t maxBins, std::int64_t maxColumnBins)
    : m_totalRows(totalRows), m_rowsPerBin(perBin(totalRows, maxBins)), m_cols(cols), m_columnsPerBin(perBin(cols, maxColumnBins))
{
    const std::int64_t bins = (totalRows + m_rowsPerBin - 1) / m_rowsPerBin;
    const std::int64_t columnBins = (cols + m_columnsPerBin - 1) / m_columnsPerBin;
    m_values.shape = {bins, columnBins};
    m_values.values.assign(static_cast<std::size_t>(bins * columnBins), 0.0);
}

template <class T>
void RowOverview::addRows(std::int64_t firstRow, const T *values, std::int64_t count)
{
    const std::int64_t cols = m_cols;
    const std::int64_t columnBins = m_values.shape.at(1);
    const std::int64_t rows = cols > 0 ? count / cols : 0;
    for (std::int64_t r = 0; r < rows; ++r) {
        const auto bin = static_cast<std::size_t>((firstRow + r) / m_rowsPerBin);
        double *out = m_values.values.data() + bin * static_cast<std::size_t>(columnBins);
        const T *in = values + r * cols;
        if (m_columnsPerBin == 1) {
            for (std::int64_t c = 0; c < cols; ++c)
                pool(out[c], static_cast<double>(in[c]));
            continue;
        }
        for (std::int64_t c = 0; c < cols; ++c)
            pool(out[c / m_columnsPerBin], static_cast<double>(in[c]));
    }
    m_rowsAdded += rows;
}

template void RowOverview::addRows(std::int64_t, const float *, std::int64_t);
template void RowOverview::addRows(std::int64_t, const double *, std::int64_t);

} // namespace sparsity::ui
