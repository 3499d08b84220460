#pragma once
// Rows of a coo element whose entries' rows go back somewhere (scipy's coo_matrix as built, before
// sum_duplicates()), a band of rows at a time (core/io/row_band_reader.h): each band is read by
// a scan of every entry, keeping those in its rows in stored order. When it opens, every index
// is checked as a whole read checks them (dim by dim, each in entry order) and each row's
// entries are counted.
#include "core/io/coo_row_reader.h"
#include "core/io/h5_handle.h"
#include "core/io/row_band_reader.h"
#include "core/tensor/row_range.h"
#include "core/tensor/tensor.h"
#include "core/util/validation_report.h"

#include <string>
#include <vector>

namespace sparsity::core {

class CooBandReader final : public RowBandReader {
public:
    // `report` takes the notes a whole read gives (the conversion of its values).
    CooBandReader(const H5File &file, const std::string &path, ValidationReport *report = nullptr);
    std::int64_t valuesPerEntry() const override { return m_coo.valuesPerEntry(); }
    // Rows `rows` as a coo tensor of those rows alone, numbered from the first, their entries in
    // stored order (so converting it gives those rows of the whole element's conversion).
    Tensor readRows(RowRange rows) const override;

private:
    const H5File &m_file;
    CooParts m_coo;
};

} // namespace sparsity::core
