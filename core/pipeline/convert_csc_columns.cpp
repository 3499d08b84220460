#include "core/pipeline/convert_csc_columns.h"

#include "core/io/csc_entry_scan.h"
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/convert_stored.h"
#include "core/pipeline/csc_panels.h"
#include "core/tensor/sorting.h"
#include "core/util/errors.h"

#include <optional>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Held per entry of a panel: it as read (a value of up to 8 bytes, an int64 row), its
// canonicalized copy (the same) and its place in the sort (8 bytes).
constexpr std::int64_t kBytesPerPanelEntry = 40;

template <class T>
ConvertedElement convertColumns(const ConvertRequest &request,
                                const H5File &input,
                                const ElementInfo &e,
                                H5File &output,
                                ValidationReport &report,
                                std::int64_t budget)
{
    const auto &group = ranks();
    std::optional<CompressedOutline> opened;
    std::vector<std::int64_t> keptPerColumn;
    agreeOn(group, [&] {
        opened.emplace(readCompressedOutline(input, e.path, &report)); // I1 to I5, and the conversion's note
        keptPerColumn.assign(at(opened->shape[1]), 0);
        if (group.isRoot())
            scanCscEntries(input, e.path, *opened, &report,
                           [&](std::int64_t, std::int64_t column, bool duplicate) { keptPerColumn[at(column)] += !duplicate; });
    });
    group.sum(keptPerColumn); // the root's counts, on every rank
    const auto &outline = *opened;
    const auto columns = outline.shape[1];
    CscStreamWriter writer(output, e.path, outline.shape, dtypeOf<T>(), keptPerColumn, request.writeOptions);
    const auto entries = std::max<std::int64_t>(1, std::min(budget, kConvertBlockBytes) / kBytesPerPanelEntry);
    const auto panels = cscColumnPanels(outline.indptr, rowsOfRank(columns, 1, group.rank(), group.size()), entries);
    double rounds[] = {static_cast<double>(panels.size())};
    group.max(rounds);
    for (std::size_t k = 0; k < static_cast<std::size_t>(rounds[0]); ++k) {
        // Every rank agrees on each round's reads (collective), past its last panel too.
        std::optional<Tensor> part;
        agreeOn(group, [&] {
            if (k >= panels.size())
                return;
            part = readCompressedSlices(input, e.path, outline, panels[k]);
            auto &slices = std::get<CompressedTensor<T>>(part->storage());
            if (!compressedIsCanonical(slices))
                canonicalizeCompressed(slices);
            if (slices.nnz() != writer.columnStart(panels[k].end) - writer.columnStart(panels[k].begin))
                throw InputError(outline.where + ": its entries changed while it was read");
        });
        if (!part) {
            writer.writeEntries<T>(writer.columnStart(columns), 0, nullptr, nullptr);
            continue;
        }
        const auto &slices = std::get<CompressedTensor<T>>(part->storage());
        writer.writeEntries<T>(writer.columnStart(panels[k].begin), slices.nnz(), slices.values.data(), slices.indices.data());
    }
    const auto stored = writer.columnStart(columns);
    return {e.path, stored, stored};
}

} // namespace

bool convertCscColumnsCan(const ElementInfo &e, Layout target)
{
    return !e.masked && e.layout == Layout::Csc && target == Layout::Csc && e.shape.size() == 2;
}

ConvertedElement convertCscColumns(const ConvertRequest &request,
                                   const H5File &input,
                                   const ElementInfo &e,
                                   H5File &output,
                                   ValidationReport &report,
                                   std::int64_t budgetBytes)
{
    return withComputeType(
        e.dtype, [&](auto typeTag) { return convertColumns<decltype(typeTag)>(request, input, e, output, report, budgetBytes); });
}

} // namespace sparsity::core
