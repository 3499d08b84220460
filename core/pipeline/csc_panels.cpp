#include "core/pipeline/csc_panels.h"

#include "core/tensor/buffer.h"
#include "core/util/errors.h"

#include <algorithm>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Each panel reads the whole input once. Panels hold a quarter of the output's entries, so the
// input is read about four times, or at least 64 MiB of them, whichever is more, within half
// the budget. From the page cache more reads cost little (a 256 MiB float32 table to csc, 41M
// entries, took 1.7-2.6 s whether its panels held 8, 64 or 128 MiB, where the whole-tensor
// path took 1.4-4.5 s and 1.8 GB); from disk or gzip, each read is paid in full. Where each
// read costs a whole read (CscPanels::costlyRereads), panels hold at least 256 MiB: an output
// up to that size is one read of its input (a gzip csr of 21 M entries into csc: 1.7 s in
// 352 MiB, where five panels of 64 MiB took 8.2 s in 136 MiB).
constexpr std::int64_t kPanelBytes = std::int64_t{64} << 20;
constexpr std::int64_t kCostlyPanelBytes = std::int64_t{256} << 20;
constexpr int kReadsOfInput = 4;
constexpr std::int64_t kTileBytes = std::int64_t{16} << 20;

[[noreturn]] void miscounted() { throw InternalError("csc panels: a column's nonzeros differ from its count"); }

// Columns [first, end) and how they are read and written: gathered, one run for the panel;
// else a run per column per tile.
struct Panel {
    std::int64_t first = 0, end = 0, tileRows = 1;
    bool gathered = true;
    std::int64_t width() const { return end - first; }
    std::int64_t tiles(std::int64_t rows) const { return (rows + tileRows - 1) / tileRows; }
    std::int64_t writes(std::int64_t rows) const { return gathered ? 1 : tiles(rows) * width(); }
};

// The same panels on every rank: they depend only on the counts and the (common) budget.
template <class T>
std::vector<Panel> planPanels(const CscStreamWriter &writer, const CscPanels &shape, std::int64_t budgetBytes)
{
    constexpr auto entryBytes = static_cast<std::int64_t>(sizeof(T) + sizeof(std::int64_t)); // a value and its row
    const auto panelBudget = cscPanelBytes(writer.columnStart(shape.columns) * entryBytes, budgetBytes, shape.costlyRereads);
    const auto tileBudget = std::clamp<std::int64_t>(budgetBytes / 4, 1, kTileBytes);
    const auto columnStep = std::max<std::int64_t>(1, shape.columnAlignment);
    const auto rowStep = std::max<std::int64_t>(1, shape.rowAlignment);
    std::vector<Panel> panels;
    // Whole groups of columns while their entries fit the panel's half of the budget.
    for (const auto columns : cscColumnPanels(writer.columnStarts(), {0, shape.columns}, panelBudget / entryBytes, columnStep)) {
        const auto first = columns.begin, end = columns.end;
        Panel panel{first, end};
        panel.gathered = (writer.columnStart(end) - writer.columnStart(first)) * entryBytes <= panelBudget;
        panel.tileRows = std::clamp<std::int64_t>(tileBudget / (panel.width() * std::int64_t(sizeof(T))), 1,
                                                  std::max<std::int64_t>(shape.rows, 1));
        panel.tileRows = std::max(rowStep, panel.tileRows - panel.tileRows % rowStep);
        panels.push_back(panel);
    }
    return panels;
}

// A tile's nonzeros appended to their columns' runs of the panel's gathered entries (`next`:
// each column's next entry), the tile read in its own row-major order.
template <class T>
void gather(const CscStreamWriter &writer,
            const Panel &panel,
            const T *tile,
            RowRange rows,
            std::vector<std::int64_t> &next,
            T *values,
            std::int64_t *rowsOf)
{
    const auto base = writer.columnStart(panel.first);
    for (auto r = rows.begin; r < rows.end; ++r) {
        const T *row = tile + (r - rows.begin) * panel.width();
        for (std::int64_t j = 0; j < panel.width(); ++j) {
            if (row[j] == T{})
                continue;
            auto &n = next[at(j)];
            if (n >= writer.columnStart(panel.first + j + 1))
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
        const T v = tile[at((r - rows.begin) * panel.width() + j)];
        if (v != T{}) {
            values[at(n)] = v;
            rowsOf[at(n++)] = r;
        }
    }
    return n;
}

} // namespace

std::vector<RowRange>
cscColumnPanels(std::span<const std::int64_t> columnStart, RowRange span, std::int64_t entries, std::int64_t step)
{
    step = std::max<std::int64_t>(1, step);
    std::vector<RowRange> panels;
    for (auto first = span.begin; first < span.end;) {
        auto end = std::min(span.end, first + step);
        while (end < span.end) {
            const auto wider = std::min(span.end, end + step);
            if (columnStart[at(wider)] - columnStart[at(first)] > entries)
                break;
            end = wider;
        }
        panels.push_back({first, end});
        first = end;
    }
    return panels;
}

std::int64_t cscPanelBytes(std::int64_t outputBytes, std::int64_t budgetBytes, bool costlyRereads)
{
    return std::clamp<std::int64_t>(std::max(costlyRereads ? kCostlyPanelBytes : kPanelBytes, outputBytes / kReadsOfInput), 1,
                                    std::max<std::int64_t>(1, budgetBytes / 2));
}

template <class T>
void writeCscInPanels(CscStreamWriter &writer,
                      const CscPanels &shape,
                      std::int64_t budgetBytes,
                      const CscTileSource<T> &fill,
                      const RankGroup &group)
{
    double smallest[] = {static_cast<double>(budgetBytes)};
    group.min(smallest);
    const auto panels = planPanels<T>(writer, shape, static_cast<std::int64_t>(smallest[0]));
    std::vector<std::int64_t> writesOf(static_cast<std::size_t>(group.size()));
    for (std::size_t i = 0; i < panels.size(); ++i)
        writesOf[i % writesOf.size()] += panels[i].writes(shape.rows);
    const auto rounds = *std::max_element(writesOf.begin(), writesOf.end());
    std::int64_t written = 0;
    // A rank that failed goes on to its next write without working, where every rank learns of
    // it (the writes are collective on a shared file).
    DeferredFailure failure;
    auto write = [&](std::int64_t offset, std::int64_t count, const T *values, const std::int64_t *rows) {
        failure.agree(group);
        writer.writeEntries(offset, count, values, rows);
        ++written;
    };

    Buffer<T> tile, values;
    Buffer<std::int64_t> rowsOf;
    std::vector<std::int64_t> next; // per column of the panel: where its next entry goes
    for (auto i = static_cast<std::size_t>(group.rank()); i < panels.size(); i += writesOf.size()) {
        const auto &panel = panels[i];
        const auto entries = writer.columnStart(panel.end) - writer.columnStart(panel.first);
        failure.guard([&] {
            tile.resize(at(std::min(panel.tileRows, shape.rows) * panel.width()));
            // Gathered: the panel's entries in column order; else one column of one tile at a time.
            values.resize(at(panel.gathered ? entries : std::min(panel.tileRows, shape.rows)));
            rowsOf.resize(values.size());
            next.resize(at(panel.width()));
            for (std::int64_t j = 0; j < panel.width(); ++j)
                next[at(j)] = writer.columnStart(panel.first + j);
        });
        for (std::int64_t top = 0; top < shape.rows; top += panel.tileRows) {
            const RowRange rows{top, std::min(shape.rows, top + panel.tileRows)};
            failure.guard([&] {
                fill(rows, RowRange{panel.first, panel.end}, tile.data());
                if (panel.gathered)
                    gather(writer, panel, tile.data(), rows, next, values.data(), rowsOf.data());
            });
            if (panel.gathered)
                continue;
            for (std::int64_t j = 0; j < panel.width(); ++j) {
                std::int64_t offset = 0, n = 0; // an empty write (agreeing on the failure) after one
                failure.guard([&] {
                    offset = next[at(j)];
                    n = columnOfTile(panel, tile.data(), rows, j, values.data(), rowsOf.data());
                    if (offset + n > writer.columnStart(panel.first + j + 1))
                        miscounted();
                });
                write(offset, n, values.data(), rowsOf.data());
                next[at(j)] += n;
            }
        }
        failure.guard([&] {
            for (std::int64_t j = 0; j < panel.width(); ++j)
                if (next[at(j)] != writer.columnStart(panel.first + j + 1))
                    miscounted();
        });
        if (panel.gathered)
            write(writer.columnStart(panel.first), entries, values.data(), rowsOf.data());
    }
    while (written < rounds) // this rank's share is written: empty writes for the others' rounds
        write(0, 0, values.data(), rowsOf.data());
    failure.agree(group);
}

template void
writeCscInPanels<float>(CscStreamWriter &, const CscPanels &, std::int64_t, const CscTileSource<float> &, const RankGroup &);
template void
writeCscInPanels<double>(CscStreamWriter &, const CscPanels &, std::int64_t, const CscTileSource<double> &, const RankGroup &);

} // namespace sparsity::core
