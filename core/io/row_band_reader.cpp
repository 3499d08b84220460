#include "core/io/row_band_reader.h"

#include "core/io/h5_reader.h"
#include "core/tensor/dtype.h"
#include "core/util/errors.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <cstring>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

} // namespace

std::optional<StoredEntries> storedEntriesOf(const H5File &file, const ElementInfo &element)
{
    if (element.layout != Layout::Coo && element.layout != Layout::Csc)
        return std::nullopt;
    try {
        const auto valueBytes = static_cast<std::int64_t>(dtypeSize(computeTypeFor(element.dtype)));
        StoredEntries stored;
        if (element.layout == Layout::Csc) {
            const auto indptr = readCompressedOutline(file, element.path).indptr;
            stored.entries = indptr.back();
            stored.entryBytes = 8 + valueBytes;
            stored.outlineBytes = 8 * static_cast<std::int64_t>(indptr.size());
            return stored;
        }
        const auto extent = describeCooEntries(file, element.path);
        if (extent.sparseDims < 1)
            return std::nullopt;
        const auto &shape = element.shape;
        stored.entries = extent.entries;
        stored.valuesPerEntry = numel(
            shape, static_cast<std::size_t>(std::min<int>(extent.sparseDims, static_cast<int>(shape.size()))), shape.size());
        stored.entryBytes = 8 * static_cast<std::int64_t>(extent.sparseDims) + stored.valuesPerEntry * valueBytes;
        return stored;
    } catch (const Error &) {
        return std::nullopt; // the whole read says what is wrong
    }
}

std::int64_t RowBandReader::entries() const { return entriesIn({0, rowCount()}); }

std::int64_t RowBandReader::entriesIn(RowRange rows) const { return m_counts.in(rows); }

std::int64_t RowBandReader::heldBytes() const { return m_counts.heldBytes() + (m_spill ? m_spill->heldBytes() : 0); }

RowRange RowBandReader::bandFrom(std::int64_t first, std::int64_t end, std::int64_t entries, std::int64_t maxRows) const
{
    std::int64_t held = 0;
    for (auto row = first; row < end; ++row) {
        const auto here = entriesOfRow(row);
        if (row > first && (held + here > entries || row - first >= maxRows))
            return {first, row};
        held += here;
    }
    return {first, end};
}

std::vector<RowRange> RowBandReader::bandsOfEntries(RowRange span, std::int64_t entries, std::int64_t maxRows) const
{
    std::vector<RowRange> bands;
    for (auto first = span.begin; first < span.end; first = bands.back().end)
        bands.push_back(bandFrom(first, span.end, entries, maxRows));
    return bands;
}

void RowBandReader::planReads(RowRange span, std::int64_t reads, std::int64_t memoryBytes)
{
    if (reads <= kMostScannedBands || m_spill || span.count() == 0)
        return;
    if (spillFolderIsMemory()) {
        if (m_report && !m_scansNoted)
            m_report->add(Severity::Notice, "", where(),
                          "read in " + std::to_string(reads)
                              + " bands of rows, each by a scan of it: not spilled sorted by row to " + spillFolder()
                              + ", a tmpfs, whose pages would be memory beyond the limit (a TMPDIR on a disk makes each band one "
                                "read)");
        m_scansNoted = true;
        return;
    }
    auto spill = std::make_unique<RowSpill>(m_counts, span, recordBytes(), memoryBytes, where());
    scanRecords([&](std::span<const std::int64_t> rows, const std::byte *records) { spill->add(rows, records); });
    spill->finish();
    m_spill = std::move(spill);
}

Tensor RowBandReader::readRows(RowRange rows) const
{
    if (!rows.within(rowCount()))
        throw InternalError("RowBandReader::readRows: rows within the element's");
    const auto bytes = recordBytes();
    std::vector<std::byte> records(at(m_counts.in(rows)*bytes));
    if (m_spill && m_spill->span().begin <= rows.begin && rows.end <= m_spill->span().end) {
        m_spill->read(rows, records.data());
        return bandOfRecords(rows, records);
    }
    // Its entries counted when it opened: each row's records are placed from its first slot
    // on, the next slot of each row kept (kReadBytesPerRow).
    std::vector<std::int64_t> next(at(rows.count()));
    std::int64_t slots = 0;
    for (auto row = rows.begin; row < rows.end; ++row) {
        next[at(row - rows.begin)] = slots;
        slots += entriesOfRow(row);
    }
    const auto changed = [&] { return InputError(where() + ": its entries changed while it was read"); };
    scanRecords([&](std::span<const std::int64_t> entryRows, const std::byte *from) {
        for (std::size_t i = 0; i < entryRows.size(); ++i) {
            const auto row = entryRows[i];
            if (row < rows.begin || row >= rows.end)
                continue;
            // A row given more entries than counted runs into the next row's slots (found
            // below) or, the last, past the band's.
            auto &slot = next[at(row - rows.begin)];
            if (slot >= slots)
                throw changed();
            std::memcpy(records.data() + slot * bytes, from + static_cast<std::int64_t>(i) * bytes, at(bytes));
            ++slot;
        }
    });
    // Each row's slots filled, none beyond: its next slot is the following row's first.
    std::int64_t end = 0;
    for (auto row = rows.begin; row < rows.end; ++row) {
        end += entriesOfRow(row);
        if (next[at(row - rows.begin)] != end)
            throw changed();
    }
    return bandOfRecords(rows, records);
}

} // namespace sparsity::core
