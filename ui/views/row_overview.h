#pragma once
// RowOverview: a level-of-detail picture of a whole table too large to load (a 1,000,000-row
// embedding): its rows fall into `bins` consecutive blocks, and each [block, column] holds the
// value of largest |value| among the block's rows (a NaN or Inf always wins), so one large
// entry in a million rows stays visible. It is built from row chunks in any order. A table
// wider than `maxColumnBins` has its columns pooled the same way, so the overview stays a few
// MiB whatever the table's width (2048 bins of a 1,000,000-column row held 16 GB before).
#include "core/tensor/dense_tensor.h"

#include <cstdint>

namespace sparsity::ui {

class RowOverview {
public:
    RowOverview() = default;
    // `cols`: the elements of one row (a row of an N-d table is everything after dim 0).
    RowOverview(std::int64_t totalRows, std::int64_t cols, std::int64_t maxBins, std::int64_t maxColumnBins = 1024);

    // Merges rows [firstRow, firstRow + count / cols) given row-major in `values`.
    template <class T>
    void addRows(std::int64_t firstRow, const T *values, std::int64_t count);

    std::int64_t totalRows() const { return m_totalRows; }
    std::int64_t rowsPerBin() const { return m_rowsPerBin; }
    std::int64_t columnsPerBin() const { return m_columnsPerBin; }
    std::int64_t bins() const { return m_values.shape.empty() ? 0 : m_values.shape[0]; }
    // [bins x column bins]
    const core::DenseTensor<double> &values() const { return m_values; }
    // Rows merged so far (of totalRows()).
    std::int64_t rowsAdded() const { return m_rowsAdded; }
    bool complete() const { return m_totalRows > 0 && m_rowsAdded >= m_totalRows; }

private:
    std::int64_t m_totalRows = 0;
    std::int64_t m_rowsPerBin = 1;
    std::int64_t m_cols = 0; // elements of a table row
    std::int64_t m_columnsPerBin = 1;
    std::int64_t m_rowsAdded = 0;
    core::DenseTensor<double> m_values;
};

} // namespace sparsity::ui
