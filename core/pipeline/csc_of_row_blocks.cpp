#include "core/pipeline/csc_of_row_blocks.h"

#include "core/parallel/rank_group.h"
#include "core/pipeline/csc_panels.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

#include <algorithm>
#include <optional>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

[[noreturn]] void miscounted() { throw InternalError("writeCscOfRowBlocks: a column's entries differ from its count"); }

// The block's csc of `part`, asked for `columns`: its indptr from column columns.begin on.
template <class T>
const std::int64_t *indptrOf(const CscOfRows<T> &part, RowRange columns)
{
    const auto held = part.values.shape.size() == 2 ? part.values.shape[1] : 0;
    if (columns.begin < part.firstColumn || columns.end > part.firstColumn + held)
        throw InternalError("writeCscOfRowBlocks: a block without the columns asked for");
    return part.values.indptr.data() + (columns.begin - part.firstColumn);
}

} // namespace

template <class T>
CscOfRows<T> cscOfRows(const Tensor &rows)
{
    auto part = toLayout(rows, Layout::Csc);
    auto *csc = std::get_if<CompressedTensor<T>>(&part.storage());
    if (!csc || rows.isMasked() != part.isMasked())
        throw InternalError("cscOfRows: a csc block of the compute type");
    return {std::move(*csc), part.isMasked() ? *part.mask() : Mask{}, rows.storedCount()};
}

template <class T>
ConvertedElement writeCscOfRowBlocks(H5File &output,
                                     const std::string &path,
                                     const Shape &shape,
                                     bool masked,
                                     std::span<const RowRange> blocks,
                                     const CscOfRowsSource<T> &convert,
                                     const WriteOptions &options,
                                     std::int64_t budget,
                                     const std::function<void()> &counted)
{
    const auto &group = ranks();
    const auto columns = shape[1];
    std::vector<std::int64_t> storedPerColumn(at(columns));
    ConvertedElement converted{path, 0, 0};
    // The counting pass: each rank its contiguous share of the blocks, so that each block is
    // read (and its notes told) once over the ranks; any rank's bad block stops every rank.
    const auto share = rowsOfRank(static_cast<std::int64_t>(blocks.size()), 1, group.rank(), group.size());
    agreeOn(group, [&] {
        for (auto k = share.begin; k < share.end; ++k) {
            const auto part = convert(blocks[at(k)], {0, columns});
            const auto *indptr = indptrOf(part, {0, columns});
            converted.storedBefore += part.storedRead;
            for (std::int64_t j = 0; j < columns; ++j)
                storedPerColumn[at(j)] += indptr[j + 1] - indptr[j];
        }
    });
    group.sum(storedPerColumn);
    converted.storedBefore = group.sum(converted.storedBefore);
    if (counted)
        counted();
    if (masked)
        createEncodedGroup(output, path, "masked_tensor");
    CscStreamWriter writer(output, masked ? path + "/data" : path, shape, dtypeOf<T>(), storedPerColumn, options);
    std::optional<CscStreamWriter> maskWriter;
    if (masked)
        maskWriter.emplace(output, path + "/mask", shape, DType::Bool, storedPerColumn, options);
    storedPerColumn = {};
    // The same panels on every rank: from the summed counts and the smallest rank's budget.
    double smallest[] = {static_cast<double>(budget)};
    group.min(smallest);
    // A value and its row (and its mask's byte).
    const auto entryBytes = static_cast<std::int64_t>(sizeof(T) + sizeof(std::int64_t)) + (masked ? 1 : 0);
    const auto panelBytes =
        std::max(entryBytes, cscPanelBytes(writer.columnStart(columns) * entryBytes, static_cast<std::int64_t>(smallest[0]),
                                           /*costlyRereads=*/true)); // each block's rows converted again
    const auto panels = cscColumnPanels(writer.columnStarts(), {0, columns}, panelBytes / entryBytes);
    const auto gathered = [&](RowRange panel) {
        return (writer.columnStart(panel.end) - writer.columnStart(panel.begin)) * entryBytes <= panelBytes;
    };
    // Panel i is rank i mod size's, which reads every block for it. The writes are collective:
    // a gathered panel is one, another (one column) one per block; every rank makes as many as
    // the rank with the most, a failed rank going on to its next write without working, where
    // every rank learns of it.
    const auto size = static_cast<std::size_t>(group.size());
    std::vector<std::int64_t> writesOf(size);
    for (std::size_t i = 0; i < panels.size(); ++i)
        writesOf[i % size] += gathered(panels[i]) ? 1 : static_cast<std::int64_t>(blocks.size());
    const auto rounds = *std::max_element(writesOf.begin(), writesOf.end());
    std::int64_t written = 0;
    DeferredFailure failure;
    Buffer<T> values;
    Buffer<std::uint8_t> bits;
    Buffer<std::int64_t> rowsOf;
    auto writeRun = [&](std::int64_t offset, std::int64_t count) {
        failure.agree(group);
        writer.writeEntries(offset, count, values.data(), rowsOf.data());
        if (maskWriter)
            maskWriter->writeEntries(offset, count, bits.data(), rowsOf.data());
        ++written;
    };
    for (auto i = static_cast<std::size_t>(group.rank()); i < panels.size(); i += size) {
        const auto first = panels[i].begin, end = panels[i].end;
        const auto base = writer.columnStart(first), entries = writer.columnStart(end) - base;
        const bool whole = gathered(panels[i]);
        std::vector<std::int64_t> next(at(end - first)); // each column's next entry, from base
        for (auto j = first; j < end; ++j)
            next[at(j - first)] = writer.columnStart(j) - base;
        failure.guard([&] {
            if (whole) {
                values.resize(at(entries));
                rowsOf.resize(at(entries));
                if (masked)
                    bits.resize(at(entries));
            }
        });
        for (const auto &block : blocks) {
            std::int64_t runAt = 0, run = 0; // of one column: this block's run of it
            failure.guard([&] {
                const auto part = convert(block, {first, end});
                const auto &csc = part.values;
                // Column j's entries lie at [indptr[j - first], indptr[j - first + 1]).
                const auto *indptr = indptrOf(part, {first, end});
                if (masked && part.mask.size() != csc.values.size())
                    throw InternalError("writeCscOfRowBlocks: a masked block without a mask value per entry");
                if (!whole) {
                    const auto from = indptr[0];
                    run = indptr[1] - from;
                    values.assign(csc.values.begin() + from, csc.values.begin() + from + run);
                    if (masked)
                        bits.assign(part.mask.begin() + from, part.mask.begin() + from + run);
                    rowsOf.resize(at(run));
                    for (std::int64_t k = 0; k < run; ++k)
                        rowsOf[at(k)] = block.begin + csc.indices[at(from + k)];
                    if (next.front() + run > entries)
                        miscounted();
                    runAt = base + next.front();
                    next.front() += run;
                    return;
                }
                for (auto j = first; j < end; ++j) {
                    auto &slot = next[at(j - first)];
                    for (auto k = indptr[j - first]; k < indptr[j - first + 1]; ++k, ++slot) {
                        if (slot >= writer.columnStart(j + 1) - base)
                            miscounted();
                        values[at(slot)] = csc.values[at(k)];
                        rowsOf[at(slot)] = block.begin + csc.indices[at(k)];
                        if (masked)
                            bits[at(slot)] = part.mask[at(k)];
                    }
                }
            });
            if (!whole)
                writeRun(runAt, run);
        }
        failure.guard([&] {
            for (auto j = first; j < end; ++j)
                if (next[at(j - first)] != writer.columnStart(j + 1) - base)
                    miscounted();
        });
        if (whole)
            writeRun(base, entries);
    }
    while (written < rounds) // this rank's panels are written: empty writes for the others' rounds
        writeRun(writer.columnStart(columns), 0);
    failure.agree(group);
    converted.storedAfter = writer.columnStart(columns);
    return converted;
}

#define SPARSITY_INSTANTIATE(T)                                                                                                  \
    template CscOfRows<T> cscOfRows<T>(const Tensor &);                                                                          \
    template ConvertedElement writeCscOfRowBlocks<T>(H5File &, const std::string &, const Shape &, bool,                         \
                                                     std::span<const RowRange>, const CscOfRowsSource<T> &,                      \
                                                     const WriteOptions &, std::int64_t, const std::function<void()> &);
SPARSITY_INSTANTIATE(float)
SPARSITY_INSTANTIATE(double)
#undef SPARSITY_INSTANTIATE

} // namespace sparsity::core
