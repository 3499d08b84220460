#pragma once
// A 2-d element written as csc in bounded memory. A csc layout stores every row of a column
// before the next column, so rows read in blocks cannot be written as they come. The columns are
// taken in panels instead: a panel is as many columns as their entries (counted by a first pass,
// `CscStreamWriter`) fit a panel's share (a quarter of the output, or 64 MiB if more, within
// half the budget; 256 MiB if more where a panel's read costs a whole read: cscPanelBytes),
// gathered in memory from tiles of rows read across the panel and written as one run. A
// column with more entries than that is a panel of its own, each tile's entries written
// straight to their place. The input is read once per panel (docs/KNOWN_LIMITS.md: a strided
// read, and a chunked input's chunks are read by every panel).
//
// Across ranks the panels are dealt out in turn (panel i to rank i mod size); each rank reads
// every row of its panels. Writes to a shared file are collective, so every rank makes as many
// as the rank with the most, the others writing nothing in their last ones, and the ranks agree
// on any failure before each write.
#include "core/io/h5_writer.h"
#include "core/parallel/rank_group.h"
#include "core/tensor/row_range.h"

#include <functional>
#include <span>
#include <vector>

namespace sparsity::core {

struct CscPanels {
    std::int64_t rows = 0, columns = 0;
    // A tile's first row is a multiple of rowAlignment, a panel's first column of
    // columnAlignment: data-norm's blocks and n-m's groups are never split.
    std::int64_t rowAlignment = 1, columnAlignment = 1;
    // Whether a panel's read of the input costs about what a whole read does: a compressed
    // dataset's chunks inflated again (its boxes are whole chunks), rows densified whole to keep
    // a box of them, values converted by HDF5. Not a plain float or double dataset's boxes, read
    // alone from the page cache (DensifiedRows::rereadsCostly).
    bool costlyRereads = false;
};

// The element's final values in the box rows x columns, row-major, into `tile`. Each box of
// the element is asked for once (of one rank): panels in column order, tiles in row order
// within a panel.
template <class T>
using CscTileSource = std::function<void(RowRange rows, RowRange columns, T *tile)>;

// Writes every entry of `writer`'s element from `fill`'s tiles, holding at most about
// budgetBytes (the tile takes a quarter, up to 16 MiB; the panel's entries up to half).
// Every rank of `group` passes the same writer sizes; the panels take the smallest of the ranks'
// budgets, so that every rank plans the same ones. Throws InternalError when the tiles'
// nonzeros are not those the writer was sized for.
template <class T>
void writeCscInPanels(CscStreamWriter &writer,
                      const CscPanels &shape,
                      std::int64_t budgetBytes,
                      const CscTileSource<T> &fill,
                      const RankGroup &group);

// Columns `span` cut into panels, each whole groups of `step` columns (from span.begin; the last
// group may be narrower) while the panel's entries stay within `entries`, one group at least:
// `columnStart` is indptr-like (columnStart[j] where column j's entries begin, one past the
// last column too). The one rule that cuts every csc output's panels.
std::vector<RowRange>
cscColumnPanels(std::span<const std::int64_t> columnStart, RowRange span, std::int64_t entries, std::int64_t step = 1);

// The bytes a panel's gathered entries may take, for an output of `outputBytes` (values and
// row indices): a quarter of it, or 64 MiB if more, within half the budget (one at least).
// Each panel reads the input once: panels of a quarter of the output read it about four times.
// With `costlyRereads` (each read of the input costs about a whole read: a sparse element's rows
// converted again, a compressed one's chunks inflated again) 256 MiB if more: an output of up to
// 256 MiB is then one panel, one read, where the budget holds it (a gzip coo of 21 M entries
// into csc took 9.2 s in 5 panels, docs/PERFORMANCE.md, stop 64).
std::int64_t cscPanelBytes(std::int64_t outputBytes, std::int64_t budgetBytes, bool costlyRereads);

// The counting pass's step: adds to counts[j], for each column j of the row-major block
// rows x width, how many of its entries `stored(i)` says are stored (i: the entry's position in
// the block). Threads take ranges of rows, each with its own counts.
template <class Stored>
void addStoredPerColumn(std::int64_t rows, std::int64_t width, std::int64_t *counts, const Stored &stored)
{
#pragma omp parallel if (rows * width >= (1 << 15))
    {
        std::vector<std::int64_t> mine(static_cast<std::size_t>(width));
#pragma omp for schedule(static) nowait
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t j = 0; j < width; ++j)
                mine[static_cast<std::size_t>(j)] += stored(r * width + j);
#pragma omp critical(sparsity_column_counts)
        for (std::int64_t j = 0; j < width; ++j)
            counts[j] += mine[static_cast<std::size_t>(j)];
    }
}

} // namespace sparsity::core
