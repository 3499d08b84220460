#include "core/pipeline/csc_panels.h"

#include "core/tensor/buffer.h"
#include "core/util/errors.h"

#include <algorithm>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Larger panels save few reads of the input (which come from the page cache) and hold more
// memory: a 256 MiB float32 table to csc (67M entries) took 1.7-2.6 s whether its panels held
// 8, 64 or 128 MiB, where the whole-tensor conversion took 4.1 s and 1.8 GB.
constexpr std::int64_t kPanelBytes = std::int64_t{64} << 20;
constexpr std::int64_t kTileBytes = std::int64_t{16} << 20;

[[noreturn]] void miscounted() { throw InternalError("csc panels: a column's nonzeros differ from its count"); }

// The columns [first, first + width) of one panel and where their entries go.
struct Panel {
    const CscStreamWriter &writer;
    std::int64_t first = 0, width = 0;
    std::int64_t end(std::int64_t j) const { return writer.columnStart(first + j + 1); } // one past column j's last entry
};

// A tile's nonzeros appended to their columns' runs of the panel's gathered entries (`next`:
// each column's next entry, counted from the panel's first), the tile read in its own
// row-major order.
template <class T>
void gather(const Panel &panel, const T *tile, RowRange rows, std::vector<std::int64_t> &next, T *values, std::int64_t *rowsOf)
{
    const auto base = panel.writer.columnStart(panel.first);
    for (auto r = rows.begin; r < rows.end; ++r) {
        const T *row = tile + (r - rows.begin) * panel.width;
        for (std::int64_t j = 0; j < panel.width; ++j) {
            if (row[j] == T{})
                continue;
            auto &n = next[at(j)];
            if (n >= panel.end(j))
                miscounted();
            values[at(n - base)] = row[j];
            rowsOf[at(n - base)] = r;
            ++n;
        }
    }
}

// Column j's nonzeros of a tile, in row order, into values and rowsOf: their number.
template <class T>
std::int64_t columnOfTile(const Panel &panel, const T *tile, RowRange rows, std::int64_t j, T *values, std::int64_t *rowsOf)
{
    std::int64_t n = 0;
    for (auto r = rows.begin; r < rows.end; ++r) {
        const T v = tile[at((r - rows.begin) * panel.width + j)];
        if (v != T{}) {
            values[at(n)] = v;
            rowsOf[at(n++)] = r;
        }
    }
    return n;
}

} // namespace

template <class T>
void writeCscInPanels(CscStreamWriter &writer, const CscPanels &shape, std::int64_t budgetBytes, const CscTileSource<T> &fill)
{
    constexpr auto entryBytes = static_cast<std::int64_t>(sizeof(T) + sizeof(std::int64_t)); // a value and its row
    const auto panelBudget = std::clamp<std::int64_t>(budgetBytes / 2, 1, kPanelBytes);
    const auto tileBudget = std::clamp<std::int64_t>(budgetBytes / 4, 1, kTileBytes);
    const auto columnStep = std::max<std::int64_t>(1, shape.columnAlignment);
    const auto rowStep = std::max<std::int64_t>(1, shape.rowAlignment);
    Buffer<T> tile, values;
    Buffer<std::int64_t> rowsOf;
    std::vector<std::int64_t> next; // per column of the panel: where its next entry goes
    for (std::int64_t first = 0; first < shape.columns;) {
        // Whole groups of columns while their entries fit the panel's half of the budget.
        auto end = std::min(shape.columns, first + columnStep);
        while (end < shape.columns) {
            const auto wider = std::min(shape.columns, end + columnStep);
            if ((writer.columnStart(wider) - writer.columnStart(first)) * entryBytes > panelBudget)
                break;
            end = wider;
        }
        const Panel panel{writer, first, end - first};
        const auto entries = writer.columnStart(end) - writer.columnStart(first);
        const bool gathered = entries * entryBytes <= panelBudget;
        auto tileRows = std::clamp<std::int64_t>(tileBudget / (panel.width * std::int64_t(sizeof(T))), 1,
                                                 std::max<std::int64_t>(shape.rows, 1));
        tileRows = std::max(rowStep, tileRows - tileRows % rowStep);
        tile.resize(at(std::min(tileRows, shape.rows) * panel.width));
        // Gathered: the panel's entries in column order; else one column of one tile at a time.
        values.resize(at(gathered ? entries : std::min(tileRows, shape.rows)));
        rowsOf.resize(values.size());
        next.resize(at(panel.width));
        for (std::int64_t j = 0; j < panel.width; ++j)
            next[at(j)] = writer.columnStart(first + j);
        for (std::int64_t top = 0; top < shape.rows; top += tileRows) {
            const RowRange rows{top, std::min(shape.rows, top + tileRows)};
            fill(rows, RowRange{first, end}, tile.data());
            if (gathered) {
                gather(panel, tile.data(), rows, next, values.data(), rowsOf.data());
                continue;
            }
            for (std::int64_t j = 0; j < panel.width; ++j) {
                const auto n = columnOfTile(panel, tile.data(), rows, j, values.data(), rowsOf.data());
                if (next[at(j)] + n > panel.end(j))
                    miscounted();
                writer.writeEntries(next[at(j)], n, values.data(), rowsOf.data());
                next[at(j)] += n;
            }
        }
        for (std::int64_t j = 0; j < panel.width; ++j)
            if (next[at(j)] != panel.end(j))
                miscounted();
        if (gathered)
            writer.writeEntries(writer.columnStart(first), entries, values.data(), rowsOf.data());
        first = end;
    }
}

template void writeCscInPanels<float>(CscStreamWriter &, const CscPanels &, std::int64_t, const CscTileSource<float> &);
template void writeCscInPanels<double>(CscStreamWriter &, const CscPanels &, std::int64_t, const CscTileSource<double> &);

} // namespace sparsity::core
