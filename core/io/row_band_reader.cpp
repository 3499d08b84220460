#include "core/io/row_band_reader.h"

namespace sparsity::core {

std::vector<RowRange> RowBandReader::bandsOfEntries(RowRange span, std::int64_t entries, std::int64_t maxRows) const
{
    std::vector<RowRange> bands;
    std::int64_t begin = span.begin, held = 0;
    for (auto row = span.begin; row < span.end; ++row) {
        const auto here = m_entriesPerRow[static_cast<std::size_t>(row)];
        if (row > begin && (held + here > entries || row - begin >= maxRows)) {
            bands.push_back({begin, row});
            begin = row;
            held = 0;
        }
        held += here;
    }
    if (begin < span.end)
        bands.push_back({begin, span.end});
    return bands;
}

} // namespace sparsity::core
