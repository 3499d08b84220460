#pragma once
// A sparse element whose rows are read a band at a time, each band a scan of every entry that
// keeps those in its rows: a coo whose entries' rows go back (core/io/coo_band_reader.h) or a
// csc (core/io/csc_band_reader.h), which `convert` reads so when converting it whole does not
// fit the budget. Bounded memory bought with reads, with no sort: a conversion of B bands reads
// the element B times (twice that with its counting pass), so its bands must be few and large.
// Each row's entries are counted when the reader opens (8 bytes a row, outside the budget) to
// cut the bands.
#include "core/tensor/row_range.h"
#include "core/tensor/tensor.h"

#include <vector>

namespace sparsity::core {

class RowBandReader {
public:
    virtual ~RowBandReader() = default;
    // Values an entry stores (a hybrid coo's entry is a row of them).
    virtual std::int64_t valuesPerEntry() const = 0;
    // Rows `span` in bands of at most `entries` entries and `maxRows` rows each (one row at least).
    std::vector<RowRange> bandsOfEntries(RowRange span, std::int64_t entries, std::int64_t maxRows) const;
    // Rows `rows` as a sparse tensor of those rows alone, numbered from the first, whose
    // conversion gives those rows of the whole element's conversion.
    virtual Tensor readRows(RowRange rows) const = 0;

protected:
    std::vector<std::int64_t> m_entriesPerRow; // filled by the reader when it opens
};

} // namespace sparsity::core
