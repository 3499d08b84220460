#pragma once
// A sparse element whose rows are read a band at a time, each band a scan of every entry that
// keeps those in its rows: a coo whose entries' rows go back (core/io/coo_band_reader.h) or a
// csc (core/io/csc_band_reader.h), read so when holding it whole does not fit the budget (by
// `convert`, and by the commands that densify it a block of rows at a time:
// core/pipeline/densified_rows.h). Bounded memory bought with reads, with no sort: B bands read
// the element B times (a conversion twice that, with its counting pass), so bands must be few
// and large. Each row's entries are counted when the reader opens (8 bytes a row, outside the
// budget) to cut the bands.
#include "core/io/h5_catalog.h"
#include "core/io/h5_handle.h"
#include "core/tensor/row_range.h"
#include "core/tensor/tensor.h"

#include <optional>
#include <vector>

namespace sparsity::core {

// The most bands an element is read in, each a scan of all of it: reading a 78 MiB element 32
// times (a counting pass, then the writing one) takes a couple of seconds from the page cache;
// more is refused (it is read whole, which the budget refuses), and raising the budget is the way.
constexpr std::int64_t kMostBands = 16;

// What a coo (with a sparse dim) or csc element stores, from its outline, before a band reader
// opens it: to judge whether holding it whole fits a budget, and how many bands reading it
// takes.
struct StoredEntries {
    std::int64_t entries = 0;
    std::int64_t valuesPerEntry = 1; // a hybrid coo's entry is a row of them
    std::int64_t entryBytes = 0;     // as read: its indices, and its values in the compute type
    // The bands of at most `bandBytes` each it is read in, at `bytesPerValue` a stored value.
    std::int64_t bandsOf(std::int64_t bandBytes, std::int64_t bytesPerValue) const;
};
// Of `element` of `file`; none for another element, or one whose outline is unusable (a whole
// read says what is wrong with it).
std::optional<StoredEntries> storedEntriesOf(const H5File &file, const ElementInfo &element);

class RowBandReader {
public:
    virtual ~RowBandReader() = default;
    // Values an entry stores (a hybrid coo's entry is a row of them).
    virtual std::int64_t valuesPerEntry() const = 0;
    // The entries it stores (duplicates too).
    std::int64_t entries() const;
    // The band of rows from `first` (below `end`) of at most `entries` entries and `maxRows` rows
    // (one row at least).
    RowRange bandFrom(std::int64_t first, std::int64_t end, std::int64_t entries, std::int64_t maxRows) const;
    // Rows `span` in such bands.
    std::vector<RowRange> bandsOfEntries(RowRange span, std::int64_t entries, std::int64_t maxRows) const;
    // Rows `rows` as a sparse tensor of those rows alone, numbered from the first, whose
    // conversion gives those rows of the whole element's conversion.
    virtual Tensor readRows(RowRange rows) const = 0;

protected:
    std::vector<std::int64_t> m_entriesPerRow; // filled by the reader when it opens
};

} // namespace sparsity::core
