#include "core/pipeline/csc_of_row_blocks.h"

#include "core/pipeline/csc_panels.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

#include <optional>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

[[noreturn]] void miscounted() { throw InternalError("writeCscOfRowBlocks: a column's entries differ from its count"); }

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
                                     std::int64_t budget)
{
    const auto columns = shape[1];
    std::vector<std::int64_t> storedPerColumn(at(columns));
    ConvertedElement converted{path, 0, 0};
    for (const auto &block : blocks) {
        const auto part = convert(block);
        converted.storedBefore += part.storedRead;
        for (std::int64_t j = 0; j < columns; ++j)
            storedPerColumn[at(j)] += part.values.indptr[at(j + 1)] - part.values.indptr[at(j)];
    }
    if (masked)
        createEncodedGroup(output, path, "masked_tensor");
    CscStreamWriter writer(output, masked ? path + "/data" : path, shape, dtypeOf<T>(), storedPerColumn, options);
    std::optional<CscStreamWriter> maskWriter;
    if (masked)
        maskWriter.emplace(output, path + "/mask", shape, DType::Bool, storedPerColumn, options);
    storedPerColumn = {};
    // A value and its row (and its mask's byte).
    const auto entryBytes = static_cast<std::int64_t>(sizeof(T) + sizeof(std::int64_t)) + (masked ? 1 : 0);
    const auto panelBytes = std::max(entryBytes, cscPanelBytes(writer.columnStart(columns) * entryBytes, budget));
    Buffer<T> values;
    Buffer<std::uint8_t> bits;
    Buffer<std::int64_t> rowsOf;
    auto writeRun = [&](std::int64_t offset, std::int64_t count) {
        writer.writeEntries(offset, count, values.data(), rowsOf.data());
        if (maskWriter)
            maskWriter->writeEntries(offset, count, bits.data(), rowsOf.data());
    };
    for (const auto panel : cscColumnPanels(writer.columnStarts(), {0, columns}, panelBytes / entryBytes)) {
        const auto first = panel.begin, end = panel.end;
        const auto base = writer.columnStart(first), entries = writer.columnStart(end) - base;
        const bool gathered = entries * entryBytes <= panelBytes;
        std::vector<std::int64_t> next(at(end - first)); // each column's next entry, from base
        for (auto j = first; j < end; ++j)
            next[at(j - first)] = writer.columnStart(j) - base;
        if (gathered) {
            values.resize(at(entries));
            rowsOf.resize(at(entries));
            if (masked)
                bits.resize(at(entries));
        }
        for (const auto &block : blocks) {
            const auto part = convert(block);
            const auto &csc = part.values;
            if (masked && part.mask.size() != csc.values.size())
                throw InternalError("writeCscOfRowBlocks: a masked block without a mask value per entry");
            if (!gathered) { // one column: this block's run of it
                const auto from = csc.indptr[at(first)], n = csc.indptr[at(first + 1)] - from;
                values.assign(csc.values.begin() + from, csc.values.begin() + from + n);
                if (masked)
                    bits.assign(part.mask.begin() + from, part.mask.begin() + from + n);
                rowsOf.resize(at(n));
                for (std::int64_t k = 0; k < n; ++k)
                    rowsOf[at(k)] = block.begin + csc.indices[at(from + k)];
                if (next.front() + n > entries)
                    miscounted();
                writeRun(base + next.front(), n);
                next.front() += n;
                continue;
            }
            for (auto j = first; j < end; ++j) {
                auto &slot = next[at(j - first)];
                for (auto k = csc.indptr[at(j)]; k < csc.indptr[at(j + 1)]; ++k, ++slot) {
                    if (slot >= writer.columnStart(j + 1) - base)
                        miscounted();
                    values[at(slot)] = csc.values[at(k)];
                    rowsOf[at(slot)] = block.begin + csc.indices[at(k)];
                    if (masked)
                        bits[at(slot)] = part.mask[at(k)];
                }
            }
        }
        for (auto j = first; j < end; ++j)
            if (next[at(j - first)] != writer.columnStart(j + 1) - base)
                miscounted();
        if (gathered)
            writeRun(base, entries);
    }
    converted.storedAfter = writer.columnStart(columns);
    return converted;
}

#define SPARSITY_INSTANTIATE(T)                                                                                                  \
    template CscOfRows<T> cscOfRows<T>(const Tensor &);                                                                          \
    template ConvertedElement writeCscOfRowBlocks<T>(H5File &, const std::string &, const Shape &, bool,                         \
                                                     std::span<const RowRange>, const CscOfRowsSource<T> &,                      \
                                                     const WriteOptions &, std::int64_t);
SPARSITY_INSTANTIATE(float)
SPARSITY_INSTANTIATE(double)
#undef SPARSITY_INSTANTIATE

} // namespace sparsity::core
