#include "core/pipeline/convert_blocks.h"

#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/convert_coo_entries.h"
#include "core/pipeline/convert_csc_columns.h"
#include "core/pipeline/convert_masked.h"
#include "core/pipeline/convert_stored.h"
#include "core/pipeline/csc_panels.h"
#include "core/pipeline/densified_rows.h"
#include "core/tensor/buffer.h"
#include "core/util/errors.h"

#include <algorithm>
#include <numeric>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

template <class T>
ConvertedElement convert(const ConvertRequest &request,
                         const H5File &input,
                         const ElementInfo &e,
                         H5File &output,
                         ValidationReport &report,
                         std::int64_t budget,
                         std::int64_t bandBytes)
{
    // A dense dataset by hyperslab (HDF5 converts bool and integers); a csr, row_sparse or coo
    // one (to dense) densified by rows, or, a csc or a coo whose rows go back, from bands of
    // `bandBytes` (convertBandBytes), the blocks taking the rest.
    const auto &group = ranks();
    const auto how = e.layout == Layout::Dense ? RowRead::Dense : bandBytes > 0 ? RowRead::ByBands : RowRead::ByRows;
    const auto opened = openOnEveryRank<T>(input, e.path, how, &report);
    auto &reader = *opened;
    const bool plain = reader.how() == RowRead::Dense;
    if (how == RowRead::ByBands) {
        // it may spill, which may fail
        agreeOn(group, [&] { reader.holdBands(bandShareLeft(budget, reader.heldBytes(), bandBytes)); });
        budget = std::max<std::int64_t>(1, budget - reader.heldBytes());
    }
    const auto rows = e.shape[0];
    const auto width = numel(e.shape, 1, e.shape.size());
    const bool sparse = request.layout != Layout::Dense;
    // The block, and for sparse layouts what the writer gathers per value (value, position,
    // coordinates); rows densified are held twice (densified, then copied into the block).
    const auto perValue = static_cast<std::int64_t>(plain ? sizeof(T) : 2 * sizeof(T))
                          + (sparse ? static_cast<std::int64_t>(sizeof(T) + 8 + 8 * e.shape.size()) : 0);
    const auto blockRows = convertBlockRows(budget, width * perValue, rows);
    // Across ranks: the same blocks (the smallest any rank's budget allows), each rank its own
    // range of them, every rank making as many (collective) writes as the one with the most.
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
        CscPanels panels{rows, width};
        panels.costlyRereads = reader.rereadsCostly();
        writeCscInPanels<T>(
            writer, panels, budget, [&](RowRange box, RowRange columns, T *tile) { reader.readBox(box, columns, tile); }, group);
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
    RowCounts storedPerRow(mine.count());
    std::vector<std::int64_t> blockCounts;
    forEachBlock([&](std::int64_t first, std::int64_t count) {
        blockCounts.assign(at(count), 0);
#pragma omp parallel for schedule(static) if (count * width >= (1 << 15))
        for (std::int64_t r = 0; r < count; ++r)
            blockCounts[at(r)] =
                std::count_if(block.data() + r * width, block.data() + (r + 1) * width, [](T x) { return x != T{}; });
        storedPerRow.setRows(first - mine.begin, blockCounts);
    });
    SparseRowStreamWriter writer(output, e.path, request.layout, e.shape, dtypeOf<T>(),
                                 sparseRowCountsAcrossRanks(mine.begin, std::move(storedPerRow)), request.writeOptions);
    forEachBlock([&](std::int64_t first, std::int64_t count) { writer.writeRows(first, count, block.data()); });
    const auto &counts = writer.counts();
    converted.storedAfter = request.layout == Layout::RowSparse ? width * counts.storedRowsTotal : counts.entriesTotal;
    return converted;
}

} // namespace

bool convertInBlocksCan(const H5File &input, const ElementInfo &e, Layout target)
{
    if (e.masked)
        return convertMaskedCan(input, e, target);
    if (convertCooEntriesCan(e, target) || convertCscColumnsCan(e, target))
        return true;
    if (e.shape.empty())
        return false;
    // A csr, row_sparse or coo element read by rows: densified into dense, as stored into a
    // sparse layout (core/pipeline/convert_stored.h). Across ranks each reads its own rows, and
    // the root tells every rank's notices. (Asked last: of a coo, it reads the rows of its
    // entries.)
    if (e.layout == Layout::Dense)
        return true;
    return (target == Layout::Dense || convertStoredCan(e, target)) && rowReadOf(input, e) == RowRead::ByRows;
}

ConvertedElement convertInBlocks(const ConvertRequest &request,
                                 const H5File &input,
                                 const ElementInfo &e,
                                 H5File &output,
                                 ValidationReport &report,
                                 std::int64_t budgetBytes,
                                 std::int64_t bandBytes)
{
    if (e.masked)
        return convertMasked(request, input, e, output, report, budgetBytes);
    if (convertCooEntriesCan(e, request.layout))
        return convertCooEntries(request, input, e, output, report, budgetBytes);
    if (convertCscColumnsCan(e, request.layout))
        return convertCscColumns(request, input, e, output, report, budgetBytes);
    if (e.layout != Layout::Dense && request.layout != Layout::Dense)
        return convertStored(request, input, e, output, report, budgetBytes, bandBytes);
    return withComputeType(e.dtype, [&](auto typeTag) {
        return convert<decltype(typeTag)>(request, input, e, output, report, budgetBytes, bandBytes);
    });
}

} // namespace sparsity::core
