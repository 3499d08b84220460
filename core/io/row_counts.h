#pragma once
// RowCounts: each row's count of entries of a sparse element, in about a byte and an eighth a
// row where a vector of them took eight. A band reader (core/io/row_band_reader.h) holds one for
// as long as it reads bands: to cut the bands, to place a band's entries, and to find a band in
// its spill (core/io/row_spill.h); a sparse element written a block of rows at a time
// (SparseRowStreamWriter, core/io/h5_writer.h) holds one of what each row stores. Its size bounds
// the rows of a table that fit a budget (a 100-million-row table: 113 MB, where it was 800 MB).
//
// A count below 255 is a byte; a larger one is 255 there and its excess in a table of such rows
// beside (16 bytes each; a row that stores 255 entries or more stores at least 2 KiB, so the
// table is under a hundredth of what the element stores). Each group of kRowsPerGroup rows keeps
// its first entry (8 bytes), so a row's first entry is that plus at most kRowsPerGroup - 1
// bytes, and the entries of any range of rows are two such sums.
#include "core/tensor/row_range.h"

#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sparsity::core {

class RowCounts {
public:
    static constexpr std::int64_t kRowsPerGroup = 64;

    RowCounts() = default;
    // `rows` rows of no entries, to count (add) and then finish.
    explicit RowCounts(std::int64_t rows);

    // The counts of rows [0, counts.size()), finished.
    static RowCounts fromCounts(std::span<const std::int64_t> counts);

    // One more entry in `row` (within the rows), before finish.
    void add(std::int64_t row)
    {
        auto &small = m_small[static_cast<std::size_t>(row)];
        if (small < kSmallMost)
            ++small;
        else
            ++m_counting[row];
    }
    // Row `row` (within the rows) stores `n` entries (n >= 0), before finish.
    void set(std::int64_t row, std::int64_t n);
    // Rows from `first` store `counts`, before finish.
    void setRows(std::int64_t first, std::span<const std::int64_t> counts)
    {
        for (std::size_t i = 0; i < counts.size(); ++i)
            set(first + static_cast<std::int64_t>(i), counts[i]);
    }
    // Once every entry is added: the groups' first entries, and the large rows sorted. Once only:
    // a second call does nothing.
    void finish();

    std::int64_t rows() const { return static_cast<std::int64_t>(m_small.size()); }
    // The entries row `row` stores.
    std::int64_t of(std::int64_t row) const
    {
        const auto small = m_small[static_cast<std::size_t>(row)];
        return small < kSmallMost ? small : small + excessOf(row);
    }
    // The entries of the rows before `row` (row <= rows()).
    std::int64_t firstEntryOf(std::int64_t row) const;
    // The entries rows `rows` store.
    std::int64_t in(RowRange rows) const { return firstEntryOf(rows.end) - firstEntryOf(rows.begin); }
    // The entries of every row, and the rows that store one or more.
    std::int64_t total() const { return firstEntryOf(rows()); }
    std::int64_t nonEmptyRows() const { return m_nonEmptyRows; }
    // What it holds, the large rows' table included.
    std::int64_t heldBytes() const;
    // What counting `rows` rows holds at least (before any row of 255 entries or more).
    static std::int64_t bytesFor(std::int64_t rows);

private:
    static constexpr std::uint8_t kSmallMost = 255;
    std::int64_t excessOf(std::int64_t row) const;

    std::vector<std::uint8_t> m_small;
    std::vector<std::int64_t> m_groupFirst;                      // each group's first entry, and the end
    std::vector<std::pair<std::int64_t, std::int64_t>> m_excess; // (row, count - 255), by row
    std::unordered_map<std::int64_t, std::int64_t> m_counting;   // the excesses while counting
    std::int64_t m_nonEmptyRows = 0;
};

} // namespace sparsity::core
