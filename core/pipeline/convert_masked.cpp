#include "core/pipeline/convert_masked.h"

#include "core/io/h5_writer.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/convert_stored.h"
#include "core/pipeline/csc_of_row_blocks.h"
#include "core/pipeline/densified_rows.h"
#include "core/tensor/conversions.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

#include <algorithm>
#include <optional>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// The rows of a block: per value, the block's values and specified elements, the rows as stored
// (data and mask), and for a sparse layout their conversion and what the writers gather (value,
// mask byte, position, coordinates).
template <class T>
std::int64_t blockRowsOf(const ElementInfo &e, Layout target, std::int64_t budget)
{
    const auto perValue =
        static_cast<std::int64_t>(2 * sizeof(T) + 2)
        + (target == Layout::Dense ? 0 : static_cast<std::int64_t>(2 * sizeof(T) + 2 + 16 + 8 * e.shape.size()));
    return convertBlockRows(budget, numel(e.shape, 1, e.shape.size()) * perValue, e.shape[0]);
}

template <class T>
ConvertedElement convertByRows(const ConvertRequest &request,
                               const H5File &input,
                               const ElementInfo &e,
                               H5File &output,
                               ValidationReport &report,
                               std::int64_t budget)
{
    const auto &group = ranks();
    const auto opened = openOnEveryRank<T>(input, e.path, RowRead::ByRows, &report);
    auto &reader = *opened;
    const auto rows = e.shape[0];
    const auto width = numel(e.shape, 1, e.shape.size());
    const bool dense = request.layout == Layout::Dense;
    const auto blockRows = blockRowsOf<T>(e, request.layout, budget);
    // Across ranks: the same blocks, each rank its own range of them, every rank making as many
    // (collective) writes as the one with the most.
    const auto blocks = divideRows(group, rows, blockRows);
    const auto &mine = blocks.mine;
    ConvertedElement converted{e.path, 0, 0};
    createEncodedGroup(output, e.path, "masked_tensor");

    if (dense) {
        RowStreamWriter data(output, e.path + "/data", e.shape, dtypeOf<T>(), request.writeOptions);
        RowStreamWriter mask(output, e.path + "/mask", e.shape, DType::Bool, request.writeOptions);
        const auto values = at(std::min(blocks.blockRows, std::max<std::int64_t>(mine.count(), 1)) * width);
        Buffer<T> block(values);
        Buffer<std::uint8_t> specified(values);
        for (std::int64_t k = 0; k < blocks.rounds; ++k) {
            const auto rowsOfBlock = blocks.block(k);
            agreeOn(group, [&] {
                if (rowsOfBlock.count() > 0)
                    reader.readRows(rowsOfBlock, block.data(), specified.data());
            });
            data.writeRows(rowsOfBlock.begin, rowsOfBlock.count(), block.data());
            mask.writeRows(rowsOfBlock.begin, rowsOfBlock.count(), specified.data());
        }
        converted.storedBefore = group.sum(reader.storedRead()); // each rank its rows'
        converted.storedAfter = numel(e.shape);
        reader.gatherRepairs();
        return converted;
    }

    // What each row's conversion stores, counted from the conversion of its block.
    RowCounts storedPerRow(mine.count());
    std::int64_t rounds = 0;
    agreeOn(group, [&] {
        std::vector<std::int64_t> counts;
        for (std::int64_t k = 0; k < blocks.count; ++k) {
            const auto block = blocks.block(k);
            const auto part = reader.storedRows(block);
            converted.storedBefore += part.storedCount();
            counts.assign(at(block.count()), 0);
            toLayout(part, request.layout).visit([&](const auto &t) {
                for (const auto position : storedLinearIndices(t))
                    ++counts[at(position / width)];
            });
            storedPerRow.setRows(block.begin - mine.begin, counts);
        }
        rounds = blocks.rounds;
    });
    converted.storedBefore = group.sum(converted.storedBefore);
    auto counts = sparseRowCountsAcrossRanks(mine.begin, std::move(storedPerRow));
    SparseRowStreamWriter data(output, e.path + "/data", request.layout, e.shape, dtypeOf<T>(), counts, request.writeOptions);
    SparseRowStreamWriter mask(output, e.path + "/mask", request.layout, e.shape, DType::Bool, std::move(counts),
                               request.writeOptions);
    for (std::int64_t k = 0; k < rounds; ++k) {
        const auto block = blocks.block(k);
        std::optional<Tensor> part;
        agreeOn(group, [&] {
            if (block.count() > 0)
                part = toLayout(reader.storedRows(block), request.layout);
        });
        if (!part) { // past this rank's last block
            data.writeEntries<T>(mine.end, 0, {}, {});
            mask.writeEntries<std::uint8_t>(mine.end, 0, {}, {});
            continue;
        }
        part->visit([&](const auto &t) {
            if constexpr (std::is_same_v<ValueOf<std::decay_t<decltype(t)>>, T>) {
                auto positions = storedLinearIndices(t);
                auto maskPositions = positions;
                const auto &bits = *part->mask();
                data.writeEntries<T>(block.begin, block.count(), std::move(positions),
                                     std::span<const T>(t.values.data(), t.values.size()));
                mask.writeEntries<std::uint8_t>(block.begin, block.count(), std::move(maskPositions),
                                                std::span<const std::uint8_t>(bits.data(), bits.size()));
            } else {
                throw InternalError("convertMasked: a block of another type");
            }
        });
    }
    reader.gatherRepairs();
    const auto &written = data.counts();
    converted.storedAfter = request.layout == Layout::RowSparse ? width * written.storedRowsTotal : written.entriesTotal;
    return converted;
}

// Into csc (2-d): each block converted into a masked csc of its rows, its data and mask written
// in column panels (core/pipeline/csc_of_row_blocks.h), every block read again for each panel
// (across ranks, each rank's panels). A panel of dense data and mask reads and converts its
// box alone (DensifiedRows::readsBoxAlone): the same entries, in a panel's share of the time
// (an 8192^2 table under 24M: 41 panels, each of which read and converted all of it).
template <class T>
ConvertedElement convertByColumns(const ConvertRequest &request,
                                  const H5File &input,
                                  const ElementInfo &e,
                                  H5File &output,
                                  ValidationReport &report,
                                  std::int64_t budget)
{
    const auto opened = openOnEveryRank<T>(input, e.path, RowRead::ByRows, &report);
    auto &reader = *opened;
    const auto blockRows = blockRowsOf<T>(e, Layout::Csc, budget);
    std::vector<RowRange> blocks;
    for (std::int64_t row = 0; row < e.shape[0]; row += blockRows)
        blocks.push_back({row, std::min(e.shape[0], row + blockRows)});
    const auto width = e.shape[1];
    const CscOfRowsSource<T> converted = [&](RowRange block, RowRange columns) {
        if (columns.count() == width || !reader.readsBoxAlone())
            return cscOfRows<T>(reader.storedRows(block));
        auto box = makeDense<T>({block.count(), columns.count()});
        Mask specified(box.values.size());
        reader.readBox(block, columns, box.values.data(), specified.data());
        auto part = cscOfRows<T>(Tensor(Storage{std::move(box)}, std::move(specified)));
        part.firstColumn = columns.begin;
        return part;
    };
    return writeCscOfRowBlocks<T>(output, e.path, e.shape, true, blocks, converted, request.writeOptions, budget,
                                  [&] { reader.finishTellingRepairs(); });
}

} // namespace

bool convertMaskedCan(const H5File &input, const ElementInfo &e, Layout target)
{
    const bool rowLayout =
        target == Layout::Dense || target == Layout::Csr || target == Layout::Coo || target == Layout::RowSparse;
    return e.masked && (rowLayout || target == Layout::Csc) && !e.shape.empty() && numel(e.shape, 1, e.shape.size()) > 0
           && rowReadOf(input, e) == RowRead::ByRows;
}

ConvertedElement convertMasked(const ConvertRequest &request,
                               const H5File &input,
                               const ElementInfo &e,
                               H5File &output,
                               ValidationReport &report,
                               std::int64_t budgetBytes)
{
    return withComputeType(e.dtype, [&](auto typeTag) {
        using T = decltype(typeTag);
        if (request.layout == Layout::Csc)
            return convertByColumns<T>(request, input, e, output, report, budgetBytes);
        return convertByRows<T>(request, input, e, output, report, budgetBytes);
    });
}

} // namespace sparsity::core
