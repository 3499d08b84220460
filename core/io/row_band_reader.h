#pragma once
// A sparse element whose rows are read a band at a time: a coo whose entries' rows go back
// (core/io/coo_band_reader.h) or a csc (core/io/csc_band_reader.h), read so when holding it whole
// does not fit the budget (by `convert`, and by the commands that densify it a block of rows at a
// time: core/pipeline/densified_rows.h). Each row's entries are counted when the reader opens
// (core/io/row_counts.h: about a byte and an eighth a row, which its users count in the budget:
// heldBytes) to cut the bands. A band is read by a scan of every entry that keeps those in its
// rows, so B bands read the element B times (a conversion twice that, with its counting pass);
// where the rows are to be read in more than kMostScannedBands bands (planReads), the entries
// are first sorted by row into a scratch file (core/io/row_spill.h) by one more scan, and each
// band is then one read of that file; unless that file would be in memory (TMPDIR on a tmpfs),
// which the budget does not see: the bands are then read by scans, with a note saying why.
// Either way a band's entries come grouped by row, each row's in stored order.
#include "core/io/h5_catalog.h"
#include "core/io/h5_handle.h"
#include "core/io/row_counts.h"
#include "core/io/row_spill.h"
#include "core/tensor/row_range.h"
#include "core/tensor/tensor.h"
#include "core/util/memory_budget.h"
#include "core/util/validation_report.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sparsity::core {

// The most bands an element is read in by scans of all of it; more spill it sorted by row first
// (RowSpill), which costs about four scans' worth of reads and writes of it and makes each band
// one read. Measured on a shuffled 78 MiB coo into csr (PERFORMANCE.md, stop 52): 6 bands by
// scans 1.70 s, spilled 0.91 s; into dense, 3 bands 2.05 s, spilled 1.80 s.
constexpr std::int64_t kMostScannedBands = 2;

// What reading a band holds per row of it beyond its entries' records: readRows' next slot of
// each row (8 bytes) and, of a csc, the band's indptr (8). A band's rows are bounded by its
// budget through it: a 40-million-row coo of 60,000 entries read as one band held 640 MB for
// its rows under a 64M limit.
constexpr std::int64_t kReadBytesPerRow = 16;

// What a coo (with a sparse dim) or csc element stores, from its outline, before a band reader
// opens it: to judge whether holding it whole fits a budget.
struct StoredEntries {
    std::int64_t entries = 0;
    std::int64_t valuesPerEntry = 1; // a hybrid coo's entry is a row of them
    std::int64_t entryBytes = 0;     // as read: its indices, and its values in the compute type
    std::int64_t outlineBytes = 0;   // held beside its entries read whole: a csc's column pointers

    // What it holds read whole: its entries as read, and its outline.
    std::int64_t readBytes() const { return bytesFor(entries, static_cast<std::size_t>(entryBytes)) + outlineBytes; }
    // What it holds coalesced, its values of `valueBytes` each: a value and an 8-byte index each.
    std::int64_t coalescedBytes(std::size_t valueBytes) const
    {
        return bytesFor(bytesFor(entries, static_cast<std::size_t>(valuesPerEntry)), valueBytes + 8);
    }
};
// Of `element` of `file`; none for another element, or one whose outline is unusable (a whole
// read says what is wrong with it).
std::optional<StoredEntries> storedEntriesOf(const H5File &file, const ElementInfo &element);

// What a band reader of an element of `rows` rows holds to count each row's entries, from when
// it opens: its heldBytes() before any spill (more where rows store 255 entries or more).
inline std::int64_t rowCountBytes(std::int64_t rows) { return RowCounts::bytesFor(rows); }

class RowBandReader {
public:
    virtual ~RowBandReader() = default;
    // Values an entry stores (a hybrid coo's entry is a row of them).
    virtual std::int64_t valuesPerEntry() const = 0;
    // The entries it stores (duplicates too).
    std::int64_t entries() const;
    // The entries rows `rows` store (duplicates too).
    std::int64_t entriesIn(RowRange rows) const;
    // The band of rows from `first` (below `end`) of at most `entries` entries and `maxRows` rows
    // (one row at least).
    RowRange bandFrom(std::int64_t first, std::int64_t end, std::int64_t entries, std::int64_t maxRows) const;
    // Rows `span` in such bands.
    std::vector<RowRange> bandsOfEntries(RowRange span, std::int64_t entries, std::int64_t maxRows) const;
    // Rows `span` are to be read in `reads` bands (reading one twice counts twice): past
    // kMostScannedBands, its entries in those rows are spilled sorted by row now, holding at most
    // `memoryBytes` while they are, and each band within `span` is then one read of the spill.
    // Where the spill folder is memory (spillFolderIsMemory), nothing is spilled: each band is
    // read by a scan, and the report given when it opened notes it once.
    void planReads(RowRange span, std::int64_t reads, std::int64_t memoryBytes);
    // Whether planReads spilled it.
    bool spilled() const { return m_spill != nullptr; }
    // What it holds in memory from one read to the next: each row's count of entries
    // (RowCounts), and a spill's buckets.
    std::int64_t heldBytes() const;
    // Rows `rows` as a sparse tensor of those rows alone, numbered from the first, whose
    // conversion gives those rows of the whole element's conversion.
    Tensor readRows(RowRange rows) const;

protected:
    // `report` takes the notes of its reads (null: none).
    explicit RowBandReader(ValidationReport *report) : m_report(report) {}

    // Bytes of an entry's record: what a band is built from, less its row.
    virtual std::int64_t recordBytes() const = 0;
    // `take(rows, records)` for each window of a scan of every entry in stored order: entry i's
    // row `rows[i]` and its record at `records + i * recordBytes()`.
    using RecordSink = std::function<void(std::span<const std::int64_t> rows, const std::byte *records)>;
    virtual void scanRecords(const RecordSink &take) const = 0;
    // The band of rows `rows` from the records of its entries, by row (m_entriesPerRow of each),
    // each row's in stored order.
    virtual Tensor bandOfRecords(RowRange rows, std::span<const std::byte> records) const = 0;
    // The element, as messages name it.
    virtual const std::string &where() const = 0;
    // The entries row `row` stores.
    std::int64_t entriesOfRow(std::int64_t row) const { return m_counts.of(row); }

    // Each row's entries, counted (and finished) by the reader when it opens.
    RowCounts m_counts;

private:
    // The rows of the element.
    std::int64_t rowCount() const { return m_counts.rows(); }

    std::unique_ptr<RowSpill> m_spill;
    ValidationReport *m_report;
    bool m_scansNoted = false; // planReads said why it scans rather than spills
};

} // namespace sparsity::core
