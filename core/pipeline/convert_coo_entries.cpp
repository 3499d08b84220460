#include "core/pipeline/convert_coo_entries.h"

#include "core/io/coo_row_reader.h"
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/convert_stored.h"
#include "core/util/errors.h"

#include <optional>

namespace sparsity::core {
namespace {

template <class T>
ConvertedElement copyEntries(const ConvertRequest &request,
                             const H5File &input,
                             const ElementInfo &e,
                             H5File &output,
                             ValidationReport &report,
                             std::int64_t budget)
{
    const auto &group = ranks();
    std::optional<CooParts> opened;
    agreeOn(group, [&] {
        opened.emplace(openCooParts(input, e.path, &report)); // C1 to C3, and the conversion's note
        if (!group.isRoot())
            return;
        try {
            checkedNumel(opened->shape); // as the whole read's validation checks it, before C4
        } catch (const Error &error) {
            rethrowWithContext(error, opened->where);
        }
        checkCooIndices(input, *opened);
    });
    const auto &coo = *opened;
    // A run holds its indices and values as read (readCooEntries) and nothing else.
    constexpr auto indexBytes = static_cast<std::int64_t>(sizeof(std::int64_t)),
                   valueBytes = static_cast<std::int64_t>(sizeof(T));
    const auto entryBytes = coo.sparseDims * indexBytes + coo.valuesPerEntry() * valueBytes;
    const auto blocks = divideRows(group, coo.entries, convertBlockRows(budget, entryBytes, coo.entries));
    CooEntryStreamWriter writer(output, e.path, coo.shape, coo.sparseDims, coo.entries, dtypeOf<T>(), request.writeOptions);
    for (std::int64_t k = 0; k < blocks.rounds; ++k) {
        const auto run = blocks.block(k);
        std::optional<Tensor> part;
        agreeOn(group, [&] {
            if (run.count() > 0)
                part = readCooEntries(input, e.path, run);
        });
        if (!part) { // past this rank's last run
            writer.writeEntries<T>(run.begin, 0, nullptr, nullptr);
            continue;
        }
        std::visit(
            [&](const auto &t) {
                if constexpr (requires { t.sparseDims; }) {
                    if constexpr (std::is_same_v<ValueOf<std::decay_t<decltype(t)>>, T>)
                        writer.writeEntries<T>(run.begin, run.count(), t.indices.data(), t.values.data());
                    else
                        throw InternalError("convertCooEntries: a run of another type");
                } else {
                    throw InternalError("convertCooEntries: a coo run");
                }
            },
            part->storage());
    }
    const auto stored = coo.entries * coo.valuesPerEntry();
    return {e.path, stored, stored};
}

} // namespace

bool convertCooEntriesCan(const ElementInfo &e, Layout target)
{
    return !e.masked && e.layout == Layout::Coo && target == Layout::Coo;
}

ConvertedElement convertCooEntries(const ConvertRequest &request,
                                   const H5File &input,
                                   const ElementInfo &e,
                                   H5File &output,
                                   ValidationReport &report,
                                   std::int64_t budgetBytes)
{
    return withComputeType(
        e.dtype, [&](auto typeTag) { return copyEntries<decltype(typeTag)>(request, input, e, output, report, budgetBytes); });
}

} // namespace sparsity::core
