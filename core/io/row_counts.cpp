#include "core/io/row_counts.h"

#include "core/util/errors.h"

#include <algorithm>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

} // namespace

RowCounts::RowCounts(std::int64_t rows) : m_small(at(rows), 0) {}

RowCounts RowCounts::fromCounts(std::span<const std::int64_t> counts)
{
    RowCounts made(static_cast<std::int64_t>(counts.size()));
    made.setRows(0, counts);
    made.finish();
    return made;
}

void RowCounts::set(std::int64_t row, std::int64_t n)
{
    if (!m_groupFirst.empty() || n < 0)
        throw InternalError("RowCounts::set: a count of no entries or more, before finish");
    auto &small = m_small[at(row)];
    if (small == kSmallMost)
        m_counting.erase(row);
    small = static_cast<std::uint8_t>(std::min<std::int64_t>(n, kSmallMost));
    if (n > kSmallMost)
        m_counting[row] = n - kSmallMost;
}

void RowCounts::finish()
{
    if (!m_groupFirst.empty())
        return;
    m_nonEmptyRows = static_cast<std::int64_t>(std::count_if(m_small.begin(), m_small.end(), [](auto n) { return n > 0; }));
    m_excess.assign(m_counting.begin(), m_counting.end());
    std::sort(m_excess.begin(), m_excess.end());
    std::unordered_map<std::int64_t, std::int64_t>().swap(m_counting);
    const auto groups = (rows() + kRowsPerGroup - 1) / kRowsPerGroup;
    m_groupFirst.assign(at(groups + 1), 0);
    std::int64_t total = 0;
    for (std::int64_t g = 0; g < groups; ++g) {
        m_groupFirst[at(g)] = total;
        for (auto row = g * kRowsPerGroup; row < std::min(rows(), (g + 1) * kRowsPerGroup); ++row)
            total += of(row);
    }
    m_groupFirst[at(groups)] = total;
}

std::int64_t RowCounts::excessOf(std::int64_t row) const
{
    const auto found = std::lower_bound(m_excess.begin(), m_excess.end(), std::pair<std::int64_t, std::int64_t>{row, 0});
    return found != m_excess.end() && found->first == row ? found->second : 0;
}

std::int64_t RowCounts::firstEntryOf(std::int64_t row) const
{
    if (row < 0 || row > rows() || m_groupFirst.empty())
        throw InternalError("RowCounts::firstEntryOf: a row of its rows, or their end, once finished");
    const auto group = row / kRowsPerGroup;
    auto first = m_groupFirst[at(group)];
    for (auto r = group * kRowsPerGroup; r < row; ++r)
        first += of(r);
    return first;
}

std::int64_t RowCounts::heldBytes() const
{
    return static_cast<std::int64_t>(m_small.capacity() + m_groupFirst.capacity() * sizeof(std::int64_t)
                                     + m_excess.capacity() * sizeof(m_excess.front())
                                     + m_counting.size() * (sizeof(std::int64_t) * 2 + sizeof(void *) * 2));
}

std::int64_t RowCounts::bytesFor(std::int64_t rows) { return rows + (rows / kRowsPerGroup + 2) * 8; }

} // namespace sparsity::core
