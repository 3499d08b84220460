#include "core/pipeline/convert_blocks.h"

#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/csc_panels.h"
#include "core/pipeline/densified_rows.h"
#include "core/tensor/buffer.h"
#include "core/tensor/conversions.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Blocks of a few MiB: larger ones only hold more memory (the reads are sequential either way).
constexpr std::int64_t kBlockBytes = std::int64_t{8} << 20;

template <class T>
ConvertedElement convert(const ConvertRequest &request,
                         const H5File &input,
                         const ElementInfo &e,
                         H5File &output,
                         ValidationReport &report,
                         std::int64_t budget)
{
    // A dense dataset by hyperslab (HDF5 converts bool and integers); a csr or row_sparse one
    // (to dense) densified by rows.
    DensifiedRows<T> reader(input, e.path, e.layout == Layout::Dense ? RowRead::Dense : RowRead::ByRows, &report);
    const bool plain = reader.how() == RowRead::Dense;
    const auto rows = e.shape[0];
    const auto width = numel(e.shape, 1, e.shape.size());
    const bool sparse = request.layout != Layout::Dense;
    // The block, and for sparse layouts what the writer gathers per value (value, position,
    // coordinates); rows densified are held twice (densified, then copied into the block).
    const auto perValue = static_cast<std::int64_t>(plain ? sizeof(T) : 2 * sizeof(T))
                          + (sparse ? static_cast<std::int64_t>(sizeof(T) + 8 + 8 * e.shape.size()) : 0);
    const auto blockRows = std::clamp<std::int64_t>(std::min(budget, kBlockBytes) / std::max<std::int64_t>(1, width * perValue),
                                                    1, std::max<std::int64_t>(rows, 1));
    // Across ranks: the same blocks (the smallest any rank's budget allows), each rank its own
    // range of them, every rank making as many (collective) writes as the one with the most.
    const auto &group = ranks();
    const auto blocks = divideRows(group, rows, blockRows);
    const auto &mine = blocks.mine;
    Buffer<T> block(at(std::min(blocks.blockRows, std::max<std::int64_t>(mine.count(), 1)) * width));
    auto forEachBlock = [&](auto &&f) {
        for (std::int64_t k = 0; k < blocks.rounds; ++k) {
            const auto rowsOfBlock = blocks.block(k);
            agreeOn(group, [&] {
                if (rowsOfBlock.count() > 0)
                    reader.readRows(rowsOfBlock, block.data());
            });
            f(rowsOfBlock.begin, rowsOfBlock.count());
        }
    };

    ConvertedElement converted{e.path, numel(e.shape), numel(e.shape)};
    if (request.layout == Layout::Csc) { // 2-d (the layout's rule)
        std::vector<std::int64_t> storedPerColumn(at(width));
        forEachBlock([&](std::int64_t, std::int64_t count) {
            addStoredPerColumn(count, width, storedPerColumn.data(), [&](std::int64_t i) { return block[at(i)] != T{}; });
        });
        group.sum(storedPerColumn); // each rank counted its rows
        block = Buffer<T>();        // the panels take the budget
        CscStreamWriter writer(output, e.path, e.shape, dtypeOf<T>(), storedPerColumn, request.writeOptions);
        writeCscInPanels<T>(
            writer, {rows, width}, budget, [&](RowRange box, RowRange columns, T *tile) { reader.readBox(box, columns, tile); },
            group);
        converted.storedAfter = writer.columnStart(width);
        return converted;
    }
    if (!sparse) {
        RowStreamWriter writer(output, e.path, e.shape, dtypeOf<T>(), request.writeOptions);
        forEachBlock([&](std::int64_t first, std::int64_t count) { writer.writeRows(first, count, block.data()); });
        if (!plain) { // what it stores, as a whole read counts it: each rank its rows'
            std::vector<std::int64_t> stored{reader.storedRead()};
            group.sum(stored);
            converted.storedBefore = stored.front();
            reader.gatherRepairs();
        }
        return converted;
    }
    std::vector<std::int64_t> storedPerRow(at(mine.count()));
    forEachBlock([&](std::int64_t first, std::int64_t count) {
#pragma omp parallel for schedule(static) if (count * width >= (1 << 15))
        for (std::int64_t r = 0; r < count; ++r)
            storedPerRow[at(first - mine.begin + r)] =
                std::count_if(block.data() + r * width, block.data() + (r + 1) * width, [](T x) { return x != T{}; });
    });
    SparseRowStreamWriter writer(output, e.path, request.layout, e.shape, dtypeOf<T>(),
                                 sparseRowCountsAcrossRanks(mine.begin, std::move(storedPerRow)), request.writeOptions);
    forEachBlock([&](std::int64_t first, std::int64_t count) { writer.writeRows(first, count, block.data()); });
    const auto &counts = writer.counts();
    converted.storedAfter = request.layout == Layout::RowSparse ? width * counts.storedRowsTotal : counts.entriesTotal;
    return converted;
}

// Held per stored value while a block of a sparse element is converted: the block as read
// (value, int64 index), its conversion (value, up to two int64 coordinates), its positions and
// the writer's copy of them (value, position, coordinates).
constexpr std::int64_t kBytesPerStoredValue = 96;

// Rows `span` of a csr element in blocks storing about `entries` values each (one row at least,
// at most `maxRows` rows), cut from its indptr read a window at a time: rows whose values vary
// widely held as much as the widest block. Where indptr is unusable, blocks of `maxRows`:
// reading them refuses the element as a whole read does.
std::vector<RowRange>
csrBlocksOfEntries(const H5File &input, const ElementInfo &e, RowRange span, std::int64_t entries, std::int64_t maxRows)
{
    constexpr std::int64_t kWindow = std::int64_t{1} << 20; // pointers read at a time: 8 MiB
    std::vector<RowRange> blocks;
    std::int64_t begin = span.begin, start = 0; // the open block's first row, and its pointer
    bool usable = true;
    try {
        for (std::int64_t window = span.begin; usable && window < span.end; window += kWindow) {
            const auto last = std::min(span.end, window + kWindow);
            const auto indptr = readCompressedIndptr(input, e.path, {window, last + 1});
            usable = static_cast<std::int64_t>(indptr.size()) == last + 1 - window;
            if (!usable)
                break;
            if (window == span.begin)
                start = indptr.front();
            // A decreasing indptr adds no values: its rows are cut by maxRows.
            for (std::int64_t row = window; row < last; ++row) {
                const auto pointer = indptr[at(row + 1 - window)];
                if (row + 1 - begin >= maxRows || pointer - start >= entries) {
                    blocks.push_back({begin, row + 1});
                    begin = row + 1;
                    start = pointer;
                }
            }
        }
    } catch (const Error &) {
        usable = false;
    }
    if (!usable) {
        blocks.clear();
        for (begin = span.begin; begin + maxRows < span.end; begin += maxRows)
            blocks.push_back({begin, begin + maxRows});
    }
    if (begin < span.end)
        blocks.push_back({begin, span.end});
    return blocks;
}

// `convert` of a csr or row_sparse element into csr, coo or row_sparse, a block of rows at a
// time: each block as stored (stored zeros kept, duplicates summed as a whole read sums them),
// converted by toLayout() as the whole element is, whose conversions into these layouts keep
// each row to itself. A first pass counts what each row's conversion stores; the second writes.
template <class T>
ConvertedElement convertStored(const ConvertRequest &request,
                               const H5File &input,
                               const ElementInfo &e,
                               H5File &output,
                               ValidationReport &report,
                               std::int64_t budget)
{
    DensifiedRows<T> reader(input, e.path, RowRead::ByRows, &report);
    const auto width = numel(e.shape, 1, e.shape.size());
    const auto blockBytes = std::min(budget, kBlockBytes);
    const auto entries = std::max<std::int64_t>(1, blockBytes / kBytesPerStoredValue);
    // A row_sparse row, or one a row_sparse output stores, is held whole.
    const bool wholeRows = e.layout == Layout::RowSparse || request.layout == Layout::RowSparse;
    const auto maxRows = std::max<std::int64_t>(1, wholeRows ? entries / std::max<std::int64_t>(1, width) : entries);
    // Across ranks each converts its own contiguous rows, in as many rounds of (collective)
    // writes as the rank with the most blocks; past its last block a rank writes none.
    const auto &group = ranks();
    const auto mine = rowsOfRank(e.shape[0], 1, group.rank(), group.size());
    std::vector<RowRange> blocks;
    std::vector<std::int64_t> storedPerRow(at(mine.count()));
    ConvertedElement result{e.path, 0, 0};
    // What each row's conversion stores, from what the element stores in it: a csr row its
    // entries (duplicates summed), a row_sparse row every value; a row stored whole (row_sparse
    // either side) every value. Counted from the rows' structure, before any conversion.
    agreeOn(group, [&] {
        if (e.layout == Layout::RowSparse) {
            for (std::int64_t row = mine.begin; row < mine.end; row += maxRows)
                blocks.push_back({row, std::min(mine.end, row + maxRows)});
            for (const auto row : reader.storedRowNumbers())
                if (row >= mine.begin && row < mine.end) {
                    storedPerRow[at(row - mine.begin)] = width;
                    result.storedBefore += width;
                }
            return;
        }
        blocks = csrBlocksOfEntries(input, e, mine, entries, maxRows);
        for (const auto &block : blocks) {
            const auto part = reader.storedRows(block);
            result.storedBefore += part.storedCount();
            part.visit([&](const auto &t) {
                if constexpr (requires { t.indptr; })
                    for (std::int64_t r = 0; r < block.count(); ++r) {
                        const auto stored = t.indptr[at(r + 1)] - t.indptr[at(r)];
                        storedPerRow[at(block.begin - mine.begin + r)] =
                            request.layout == Layout::RowSparse && stored > 0 ? width : stored;
                    }
                else
                    throw InternalError("convertStored: a csr block");
            });
        }
    });
    result.storedBefore = group.sum(result.storedBefore);
    double rounds[] = {static_cast<double>(blocks.size())};
    group.max(rounds);
    // A row_sparse element converts into a coo of its stored rows, each indexed by its row.
    const auto cooIndex =
        e.layout == Layout::RowSparse ? SparseRowStreamWriter::CooIndex::Rows : SparseRowStreamWriter::CooIndex::EveryDim;
    SparseRowStreamWriter writer(output, e.path, request.layout, e.shape, dtypeOf<T>(),
                                 sparseRowCountsAcrossRanks(mine.begin, std::move(storedPerRow)), request.writeOptions, cooIndex);
    // Each block converted as the whole element is, written as row-major positions and values.
    // A csr block as read is canonical (sorted, duplicates summed): into csr or coo its entries
    // are the conversion's, in order, and are written as they are.
    const bool asRead = e.layout == Layout::Csr && request.layout != Layout::RowSparse;
    for (std::size_t k = 0; k < static_cast<std::size_t>(rounds[0]); ++k) {
        // Every rank agrees on each round's reads (collective), past its last block too.
        std::optional<Tensor> part;
        agreeOn(group, [&] {
            if (k < blocks.size())
                part = asRead ? reader.storedRows(blocks[k]) : toLayout(reader.storedRows(blocks[k]), request.layout);
        });
        if (!part) {
            writer.writeEntries<T>(mine.end, 0, {}, {});
            continue;
        }
        const auto block = blocks[k];
        part->visit([&](const auto &t) {
            if constexpr (std::is_same_v<ValueOf<std::decay_t<decltype(t)>>, T>)
                writer.writeEntries<T>(block.begin, block.count(), storedLinearIndices(t),
                                       std::span<const T>(t.values.data(), t.values.size()));
            else
                throw InternalError("convertStored: a block of another type");
        });
    }
    reader.gatherRepairs();
    result.storedAfter = writer.counts().entriesTotal;
    return result;
}

// Whether a sparse element's conversion into `target` keeps each row to itself, as the blocks
// of convertStored need (csc gathers every row's columns).
bool storedConversionStreams(Layout source, Layout target)
{
    return (source == Layout::Csr || source == Layout::RowSparse)
           && (target == Layout::Csr || target == Layout::RowSparse || target == Layout::Coo);
}

} // namespace

bool convertInBlocksCan(const H5File &input, const ElementInfo &e, Layout target)
{
    if (e.masked || e.shape.empty())
        return false;
    // A csr or row_sparse element read by rows: densified into dense, as stored into a sparse
    // layout whose conversion keeps each row to itself (csc gathers every row's columns).
    // Across ranks each reads its own rows, and the root tells every rank's notices.
    if (e.layout == Layout::Dense)
        return true;
    // A row_sparse element of no values per row still stores its rows, which have no values
    // to count them by: it goes whole.
    return rowReadOf(input, e) == RowRead::ByRows
           && (target == Layout::Dense || (storedConversionStreams(e.layout, target) && numel(e.shape, 1, e.shape.size()) > 0));
}

ConvertedElement convertInBlocks(const ConvertRequest &request,
                                 const H5File &input,
                                 const ElementInfo &e,
                                 H5File &output,
                                 ValidationReport &report,
                                 std::int64_t budgetBytes)
{
    return withComputeType(e.dtype, [&](auto typeTag) {
        using T = decltype(typeTag);
        if (e.layout != Layout::Dense && request.layout != Layout::Dense)
            return convertStored<T>(request, input, e, output, report, budgetBytes);
        return convert<T>(request, input, e, output, report, budgetBytes);
    });
}

} // namespace sparsity::core
