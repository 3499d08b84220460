#include "core/io/row_spill.h"

#include "core/io/positioned_io.h"
#include "core/util/errors.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

constexpr std::int64_t kRowBytes = 8; // a record's row while the buckets gather it
constexpr std::int64_t kBucketRowsAtLeast = 1 << 16;

bool isMemory(const struct statfs &fs) { return fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC; }

} // namespace

std::string spillFolder()
{
    const char *folder = std::getenv("TMPDIR");
    return folder && *folder ? folder : "/tmp";
}

bool spillFolderIsMemory()
{
    struct statfs fs {};
    return ::statfs(spillFolder().c_str(), &fs) == 0 && isMemory(fs);
}

bool spillFolderHolds(std::int64_t bytes)
{
    struct statfs fs {};
    if (::statfs(spillFolder().c_str(), &fs) != 0 || isMemory(fs))
        return false;
    const auto free = static_cast<long double>(fs.f_bavail) * static_cast<long double>(fs.f_bsize);
    return free >= static_cast<long double>(bytes);
}

namespace {

// A file of no name in `folder`: O_TMPFILE, or a name unlinked at once where the file system
// has no O_TMPFILE. -1 with errno set when neither can be made.
int openNamelessFile(const std::string &folder)
{
    const int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
    std::string name = folder + "/.sw-spill-XXXXXX";
    const int named = ::mkostemp(name.data(), O_CLOEXEC);
    if (named >= 0)
        ::unlink(name.c_str());
    return named;
}

} // namespace

RowSpill::RowSpill(const RowCounts &counts, RowRange span, std::int64_t recordBytes, std::int64_t memoryBytes, std::string where)
    : m_counts(counts), m_span(span), m_recordBytes(recordBytes), m_where(std::move(where)), m_folder(spillFolder())
{
    if (recordBytes < 1 || !span.within(counts.rows()))
        throw InternalError("RowSpill: records of a byte or more, of rows the element has");
    m_spanFirst = counts.firstEntryOf(span.begin);
    // Buckets of rows whose records (with their rows) fit half the memory, and as many rows at
    // most, or kBucketRowsAtLeast (each row's next slot while a bucket is sorted, 8 bytes; the
    // floor keeps the buckets' table small where the memory is): one is sorted at a time, read
    // whole beside its sorted copy. A row storing more is a bucket alone, which needs no sort.
    const auto gathered = kRowBytes + recordBytes;
    m_bucketRecords = std::max<std::int64_t>(1, memoryBytes / 2 / gathered);
    const auto bucketRows = std::max(m_bucketRecords, kBucketRowsAtLeast);
    std::int64_t first = span.begin, entry = 0;
    while (first < span.end) {
        auto end = first + 1;
        auto held = counts.of(first);
        while (end < span.end && held + counts.of(end) <= m_bucketRecords && end - first < bucketRows)
            held += counts.of(end++);
        m_buckets.push_back({{first, end}, entry, held, 0, {}});
        entry += held;
        first = end;
    }
    // The other half is the buckets' buffers while the scan deals the records out.
    m_pendingRecords = std::max<std::int64_t>(1, memoryBytes / 2 / gathered / std::max<std::int64_t>(1, std::ssize(m_buckets)));
    m_fd = openNamelessFile(m_folder);
    if (m_fd < 0)
        fail(std::strerror(errno));
}

RowSpill::~RowSpill()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

void RowSpill::fail(const std::string &what) const
{
    throw IoError(m_where + ": cannot spill its entries, sorted by row, to " + m_folder + " (TMPDIR): " + what);
}

void RowSpill::readAt(std::int64_t offset, std::byte *into, std::int64_t bytes) const
{
    if (const auto failure = readAtOffset(m_fd, offset, into, bytes, "the file ended early"))
        fail(*failure);
}

void RowSpill::writeAt(std::int64_t offset, const std::byte *from, std::int64_t bytes)
{
    if (const auto failure = writeAtOffset(m_fd, offset, from, bytes, "nothing was written"))
        fail(*failure);
}

void RowSpill::add(std::span<const std::int64_t> rows, const std::byte *records)
{
    if (m_finished)
        throw InternalError("RowSpill::add: before finish");
    const auto gathered = kRowBytes + m_recordBytes;
    std::size_t last = 0; // neighbouring entries are often in one bucket
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto row = rows[i];
        if (row < m_span.begin || row >= m_span.end)
            continue;
        if (!(m_buckets[last].rows.begin <= row && row < m_buckets[last].rows.end))
            last = at(std::upper_bound(m_buckets.begin(), m_buckets.end(), row,
                                       [](std::int64_t r, const Bucket &b) { return r < b.rows.begin; })
                      - m_buckets.begin() - 1);
        auto &bucket = m_buckets[last];
        if (bucket.pending.empty())
            bucket.pending.reserve(at(m_pendingRecords * gathered));
        const auto *rowBytes = reinterpret_cast<const std::byte *>(&row);
        bucket.pending.insert(bucket.pending.end(), rowBytes, rowBytes + kRowBytes);
        const auto *record = records + static_cast<std::int64_t>(i) * m_recordBytes;
        bucket.pending.insert(bucket.pending.end(), record, record + m_recordBytes);
        if (std::ssize(bucket.pending) >= m_pendingRecords * gathered)
            flush(bucket);
    }
}

void RowSpill::flush(Bucket &bucket)
{
    const auto gathered = kRowBytes + m_recordBytes;
    const auto count = std::ssize(bucket.pending) / gathered;
    if (bucket.written + count > bucket.entries)
        throw InputError(m_where + ": its entries changed while it was read");
    writeAt((bucket.first + bucket.written) * gathered, bucket.pending.data(), std::ssize(bucket.pending));
    bucket.written += count;
    bucket.pending.clear();
}

void RowSpill::finish()
{
    for (auto &bucket : m_buckets) {
        flush(bucket);
        bucket.pending.shrink_to_fit();
        if (bucket.written != bucket.entries)
            throw InputError(m_where + ": its entries changed while it was read");
    }
    // In ascending order: a bucket's sorted records land at or before its gathered ones, past
    // every earlier bucket's, so none is overwritten before it is read.
    for (const auto &bucket : m_buckets)
        sortBucket(bucket);
    if (::ftruncate(m_fd, firstEntryOf(m_span.end) * m_recordBytes) != 0)
        fail(std::strerror(errno));
    m_finished = true;
}

void RowSpill::sortBucket(const Bucket &bucket)
{
    const auto gathered = kRowBytes + m_recordBytes;
    const auto first = bucket.first;
    const auto count = bucket.entries;
    if (bucket.rows.count() == 1) {
        // One row: its records are in stored order already, and only lose their row, a bucket's
        // worth at a time (each piece written at or before where it was read, past what is
        // unread).
        std::vector<std::byte> piece(at(std::min(count, m_bucketRecords) * gathered));
        for (std::int64_t k = 0; k < count; k += m_bucketRecords) {
            const auto n = std::min(m_bucketRecords, count - k);
            readAt((first + k) * gathered, piece.data(), n * gathered);
            for (std::int64_t i = 0; i < n; ++i)
                std::memmove(piece.data() + i * m_recordBytes, piece.data() + i * gathered + kRowBytes, at(m_recordBytes));
            writeAt((first + k) * m_recordBytes, piece.data(), n * m_recordBytes);
        }
        return;
    }
    std::vector<std::byte> records(at(count * gathered));
    readAt(first * gathered, records.data(), count * gathered);
    // A stable counting sort by row: each row's next slot, from its first entry.
    std::vector<std::int64_t> next(at(bucket.rows.count()), first);
    for (std::int64_t r = 1; r < bucket.rows.count(); ++r)
        next[at(r)] = next[at(r - 1)] + m_counts.of(bucket.rows.begin + r - 1);
    std::vector<std::byte> sorted(at(count * m_recordBytes));
    for (std::int64_t i = 0; i < count; ++i) {
        std::int64_t row;
        std::memcpy(&row, records.data() + i * gathered, kRowBytes);
        auto &slot = next[at(row - bucket.rows.begin)];
        std::memcpy(sorted.data() + (slot - first) * m_recordBytes, records.data() + i * gathered + kRowBytes, at(m_recordBytes));
        ++slot;
    }
    records = {};
    writeAt(first * m_recordBytes, sorted.data(), count * m_recordBytes);
}

void RowSpill::read(RowRange rows, std::byte *into) const
{
    if (!m_finished || rows.begin < m_span.begin || rows.end > m_span.end || rows.begin > rows.end)
        throw InternalError("RowSpill::read: rows of its span, once it is finished");
    const auto first = firstEntryOf(rows.begin);
    readAt(first * m_recordBytes, into, (firstEntryOf(rows.end) - first) * m_recordBytes);
}

} // namespace sparsity::core
