#include "core/io/row_band_reader.h"

#include "core/io/h5_reader.h"
#include "core/tensor/dtype.h"
#include "core/util/errors.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <numeric>

namespace sparsity::core {

std::int64_t StoredEntries::bandsOf(std::int64_t bandBytes, std::int64_t bytesPerValue) const
{
    return bytesFor(bytesFor(entries, static_cast<std::size_t>(valuesPerEntry)), static_cast<std::size_t>(bytesPerValue))
               / std::max<std::int64_t>(1, bandBytes)
           + 1;
}

std::optional<StoredEntries> storedEntriesOf(const H5File &file, const ElementInfo &element)
{
    if (element.layout != Layout::Coo && element.layout != Layout::Csc)
        return std::nullopt;
    try {
        const auto valueBytes = static_cast<std::int64_t>(dtypeSize(computeTypeFor(element.dtype)));
        StoredEntries stored;
        if (element.layout == Layout::Csc) {
            stored.entries = readCompressedOutline(file, element.path).indptr.back();
            stored.entryBytes = 8 + valueBytes;
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

std::int64_t RowBandReader::entries() const
{
    return std::accumulate(m_entriesPerRow.begin(), m_entriesPerRow.end(), std::int64_t{0});
}

RowRange RowBandReader::bandFrom(std::int64_t first, std::int64_t end, std::int64_t entries, std::int64_t maxRows) const
{
    std::int64_t held = 0;
    for (auto row = first; row < end; ++row) {
        const auto here = m_entriesPerRow[static_cast<std::size_t>(row)];
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

} // namespace sparsity::core
