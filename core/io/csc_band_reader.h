#pragma once
// Rows of a csc element a band at a time (core/io/row_band_reader.h): what `convert` reads of a
// csc into csr, coo or row_sparse when converting it whole does not fit the budget. A csc stores
// every row of a column before the next column, so each band is read by a scan of every column
// that keeps the entries in its rows, and the band is given as the canonical csr of those rows
// (its columns ascending, a duplicate summed in stored order), as the whole read's repair (I7)
// and transposition leave them. When it opens it checks what a whole read checks, with its
// messages (the parts and indptr, I1 to I5, then every index, I6, in entry order), counts each
// row's entries and tells I7's notice (unsorted or duplicated indices: the duplicates summed)
// as a whole read tells it (core/io/csc_entry_scan.h). Its indptr is held (8 bytes a column),
// and while it opens a marker per row (8 bytes), outside the budget.
#include "core/io/h5_handle.h"
#include "core/io/h5_reader.h"
#include "core/io/row_band_reader.h"
#include "core/util/validation_report.h"

#include <string>

namespace sparsity::core {

class CscBandReader final : public RowBandReader {
public:
    // `report` takes the notes a whole read gives (the conversion of its values, I7).
    CscBandReader(const H5File &file, const std::string &path, ValidationReport *report = nullptr);
    std::int64_t valuesPerEntry() const override { return 1; }

private:
    std::int64_t recordBytes() const override { return 8 + m_valueBytes; }
    void scanRecords(const RecordSink &take) const override;
    Tensor bandOfRecords(RowRange rows, std::span<const std::byte> records) const override;
    const std::string &where() const override { return m_outline.where; }
    // An empty csc of the element's compute type.
    Tensor emptyBand() const;

    const H5File &m_file;
    std::string m_path;
    CompressedOutline m_outline;
    std::int64_t m_valueBytes = 0; // of the compute type
};

} // namespace sparsity::core
