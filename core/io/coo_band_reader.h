#pragma once
// Rows of a coo element whose entries' rows go back somewhere (scipy's coo_matrix as built, before
// sum_duplicates()), a band of rows at a time (core/io/row_band_reader.h): each band is read by
// a scan of every entry (or from the spill), keeping those in its rows. When it opens, every
// index is checked as a whole read checks them (dim by dim, each in entry order) and each row's
// entries are counted. An entry's record is its coordinates past the row (8 bytes each) and its
// values in the compute type.
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

private:
    std::int64_t recordBytes() const override;
    void scanRecords(const RecordSink &take) const override;
    // A coo tensor of the band's rows alone, numbered from the first, its entries by row, each
    // row's in stored order: coalescing sorts stably, so its conversion gives those rows of the
    // whole element's conversion, duplicates summed in the order stored.
    Tensor bandOfRecords(RowRange rows, std::span<const std::byte> records) const override;
    const std::string &where() const override { return m_coo.where; }
    // An empty coo of the element's compute type.
    Tensor emptyBand() const;

    const H5File &m_file;
    CooParts m_coo;
    std::int64_t m_valueBytes = 0; // of the compute type
};

} // namespace sparsity::core
