#pragma once
// Rows of a coo element whose entries' rows go back somewhere (scipy's coo_matrix as built, before
// sum_duplicates()), a band of rows at a time: what `convert` reads of such an element when its
// whole conversion does not fit the budget (docs/CLI.md, "convert"). Each band is read by a scan
// of every entry, keeping those in its rows in stored order, so a conversion of B bands reads the
// element B times (twice that with its counting pass): bounded memory bought with reads, with
// no sort. When it opens, every index is checked as a whole read checks them (dim by dim, each
// in entry order) and each row's entries are counted, 8 bytes a row outside the budget, to cut
// the bands.
#include "core/io/coo_row_reader.h"
#include "core/io/h5_handle.h"
#include "core/tensor/row_range.h"
#include "core/tensor/tensor.h"
#include "core/util/validation_report.h"

#include <string>
#include <vector>

namespace sparsity::core {

class CooBandReader {
public:
    // `report` takes the notes a whole read gives (the conversion of its values).
    CooBandReader(const H5File &file, const std::string &path, ValidationReport *report = nullptr);
    const CooParts &parts() const { return m_coo; }
    // Rows `span` in bands of at most `entries` entries and `maxRows` rows each (one row at least).
    std::vector<RowRange> bandsOfEntries(RowRange span, std::int64_t entries, std::int64_t maxRows) const;
    // Rows `rows` as a coo tensor of those rows alone, numbered from the first, their entries in
    // stored order (so converting it gives those rows of the whole element's conversion).
    Tensor readRows(RowRange rows) const;

private:
    const H5File &m_file;
    CooParts m_coo;
    std::vector<std::int64_t> m_entriesPerRow;
};

} // namespace sparsity::core
