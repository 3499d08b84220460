#pragma once
// RowSpill: the entries of a sparse element's rows, sorted by row into a scratch file, so that
// any band of rows is one read. It is what a band reader (core/io/row_band_reader.h) builds
// when its rows are to be read in more bands than scans of the element are worth (kMostScannedBands):
// an external counting sort, in bounded memory, of records of a fixed size.
//
// It is built in two passes. The reader's one scan of the element, in stored order, deals each
// entry's record (with its row) to the bucket of its rows: a range of rows whose records fit
// half the memory given, of as many rows at most or 65,536 (a sort's slot a row), whose region
// of the file is known from each row's count of entries (the reader's RowCounts, which the
// spill reads and does not copy).
// Each bucket gathers its records in a buffer of its share of the other half, written to its
// region when full. Then each bucket is read back, sorted by row (a stable counting sort, so
// each row's entries keep their stored order) and written back without the rows, so a band's
// records are the file's bytes from its first row's first entry to its last row's last.
//
// The file is in TMPDIR (/tmp when unset), opened with no name (O_TMPFILE; or named and
// unlinked at once where the file system cannot), so no end of the process, a crash or a kill
// included, leaves it behind. It is only made on a disk: a tmpfs's pages are memory beyond the
// budget, so there a band reader scans instead (RowBandReader::planReads). It holds (8 + record
// bytes) an entry until the sort pass, then is cut to the record bytes an entry. A file that
// cannot be made or written (a full disk) is an IoError naming the element, the folder and the
// reason (exit 3).
#include "core/io/row_counts.h"
#include "core/tensor/row_range.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sparsity::core {

// Where a spill goes: TMPDIR, /tmp when unset.
std::string spillFolder();
// Whether the spill folder is a tmpfs or ramfs: its pages are memory, which a memory limit does
// not see, so band readers read their bands by scans instead of spilling there.
bool spillFolderIsMemory();
// Whether the spill folder could hold `bytes` on a disk: false where its file system lacks that
// much free space, where it is memory (spillFolderIsMemory), or where it cannot be looked at.
// For commands that may spill without having to (an element that fits the budget), so that
// choosing to never fails or fills memory.
bool spillFolderHolds(std::int64_t bytes);

class RowSpill {
public:
    // For the entries of rows `span` (each row's count in `counts`, which must outlive it),
    // `recordBytes` each, holding at most `memoryBytes` (one record a bucket at least) while
    // it is built. `where` names the element in messages.
    RowSpill(const RowCounts &counts, RowRange span, std::int64_t recordBytes, std::int64_t memoryBytes, std::string where);
    RowSpill(const RowSpill &) = delete;
    RowSpill &operator=(const RowSpill &) = delete;
    ~RowSpill();

    // One window of the scan, in stored order: entry i's row `rows[i]` and its record at
    // `records + i * recordBytes`. Entries outside the span are left out.
    void add(std::span<const std::int64_t> rows, const std::byte *records);
    // Once every entry is added: sorts each bucket by row. An entry more or fewer than counted
    // is refused (the element changed while it was read).
    void finish();

    RowRange span() const { return m_span; }
    // What it holds in memory once finished: its buckets' bounds.
    std::int64_t heldBytes() const { return static_cast<std::int64_t>(m_buckets.capacity() * sizeof(Bucket)); }
    // The records of rows `rows` (within the span), by row, each row's in stored order, into
    // `into` (their count times the record bytes).
    void read(RowRange rows, std::byte *into) const;

private:
    struct Bucket {
        RowRange rows;
        std::int64_t first = 0;   // its first entry, from the span's first
        std::int64_t entries = 0; // its rows' entries
        std::int64_t written = 0; // records written to its region
        std::vector<std::byte> pending;
    };
    // Row `row`'s first entry (within the span, or its end), from the span's first.
    std::int64_t firstEntryOf(std::int64_t row) const { return m_counts.firstEntryOf(row) - m_spanFirst; }
    void flush(Bucket &bucket);
    void sortBucket(const Bucket &bucket);
    void readAt(std::int64_t offset, std::byte *into, std::int64_t bytes) const;
    void writeAt(std::int64_t offset, const std::byte *from, std::int64_t bytes);
    [[noreturn]] void fail(const std::string &what) const;

    const RowCounts &m_counts;
    RowRange m_span;
    std::int64_t m_spanFirst = 0; // the span's first entry, in the element
    std::int64_t m_recordBytes;
    std::string m_where, m_folder;
    std::vector<Bucket> m_buckets;
    std::int64_t m_bucketRecords = 1;  // records (with their rows) a bucket sorted in memory holds
    std::int64_t m_pendingRecords = 1; // records a bucket gathers before it is written
    int m_fd = -1;
    bool m_finished = false;
};

} // namespace sparsity::core
