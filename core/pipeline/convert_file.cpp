#include "core/pipeline/convert_file.h"

#include "core/io/atomic_output.h"
#include "core/io/file_identity.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/convert_blocks.h"
#include "core/pipeline/convert_stored.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"
#include "core/util/memory_bound.h"
#include "core/util/memory_budget.h"

#include <algorithm>

namespace sparsity::core {

std::vector<ConvertedElement>
convertFile(const ConvertRequest &request, ValidationReport &report, const ProgressCallback &progress)
{
    // Checked by every rank before the output exists; one that cannot read the input stops all.
    const auto &group = ranks();
    std::optional<H5File> opened;
    std::vector<ElementInfo> elements;
    std::int64_t budget = 0;
    agreeOn(group, [&] {
        refuseOverwritingInput(request.output, request.input);
        opened.emplace(H5File::openRead(request.input));
        elements = selectElements(*opened, request.datasets, &report);
        // The whole file converted, the rest kept: an element the layout cannot hold (a step
        // output's 0-d /state/step as row_sparse) is one of the rest. Named, it still fails.
        if (request.datasets.empty() && request.keepOthers)
            std::erase_if(elements, [&](const ElementInfo &element) {
                return !layoutAcceptsRank(request.layout, static_cast<int>(element.shape.size()));
            });
        for (const auto &element : elements) {
            try {
                requireLayoutCanHold(request.layout, element.shape);
            } catch (const Error &error) {
                rethrowWithContext(error, opened->where(element.path));
            }
            if (request.layout == Layout::Dense)
                requireAllocatable(numel(element.shape), dtypeSize(computeTypeFor(element.dtype)), opened->where(element.path));
        }
        budget = resolveMemoryLimit(request.memoryLimit);
    });
    const H5File &input = *opened;
    AtomicOutput output(request.output);
    std::vector<ConvertedElement> converted;
    std::int64_t done = 0;
    for (const auto &element : elements) {
        reportProgress(progress, done++, static_cast<std::int64_t>(elements.size()));
        // What the output may take: a dense one its every value, a sparse one converted from a
        // sparse element each stored value with its coordinates, and a csr or csc one its
        // pointers (converted whole, a 40-million-row coo of 60,000 entries into csr held 320 MB
        // of them under a 64M limit).
        const auto valueBytes = dtypeSize(computeTypeFor(element.dtype));
        const auto pointers = element.shape.size() != 2       ? 0
                              : request.layout == Layout::Csr ? element.shape[0] + 1
                              : request.layout == Layout::Csc ? element.shape[1] + 1
                                                              : 0;
        const auto bytes =
            element.layout != Layout::Dense && request.layout != Layout::Dense && element.nnz
                ? saturatedSum(bytesFor(*element.nnz, valueBytes + 8 * element.shape.size()), bytesFor(pointers, 8))
                : bytesFor(numel(element.shape), valueBytes);
        // A dense dataset streams whatever its size: a block of rows holds a few MiB where the
        // whole tensor and its conversion held seven times the dataset (256 MiB to csr: 1.8 GB
        // and 1.06 s in memory, 36 MiB and 0.63 s in blocks). Every rank takes the same path.
        // A coo whose rows go back, or a csc, into dense or where its whole conversion does not
        // fit the budget: a band of rows at a time, each band a scan of it (convertBandBytes).
        const bool byRows = convertInBlocksCan(input, element, request.layout);
        const auto bandBytes = byRows ? 0 : convertBandBytes(input, element, request.layout, bytes, budget);
        if (group.onEveryRank((byRows || bandBytes > 0) && fitsFreeSpaceOf(request.output, bytes))) {
            // A budget larger than the memory the process may have runs out of it there too:
            // named, as a whole conversion's is.
            converted.push_back(withAllocationContext(input.where(element.path), "converting it", [&] {
                return convertInBlocks(request, input, element, output.file(), report, budget, bandBytes);
            }));
            continue;
        }
        // Whole: every rank reads and converts it, the root writes it. A dense dataset over the
        // budget is here only for want of room to stream it: say that, not the budget.
        const auto where = input.where(element.path);
        std::optional<Tensor> tensor, result;
        agreeOn(group, [&] {
            if (convertInBlocksCan(input, element, request.layout) && bytes > budget)
                requireRoomToStream(request.output, bytes, where);
            tensor.emplace(withAllocationContext(where, "reading it", [&] { return readTensor(input, element.path, &report); }));
            // Each part read is checked against the budget alone; what the conversion holds at
            // once is refused over it here (a coo of 78 MiB into csr held 337 MiB under a 64M
            // limit).
            requireWithinBudget(wholeConversionBytes(heldBytes(*tensor), bytes), where, "converting it whole");
            result.emplace(withAllocationContext(where, "converting it", [&] {
                try {
                    return toLayout(*tensor, request.layout);
                } catch (const Error &error) {
                    rethrowWithContext(error, where);
                }
            }));
        });
        writeTensor(output.file(), element.path, *result, request.writeOptions);
        converted.push_back({element.path, tensor->storedCount(), result->storedCount()});
    }
    // The output is the input with the chosen elements converted: the others copied as they are.
    if (request.keepOthers)
        for (const auto &element : selectElements(input, {}, nullptr))
            if (std::none_of(elements.begin(), elements.end(), [&](const ElementInfo &e) { return e.path == element.path; })) {
                copyElement(input, element.path, output.file());
                converted.push_back({element.path, 0, 0, true});
            }
    reportProgress(progress, done, static_cast<std::int64_t>(elements.size()));
    output.commit();
    return converted;
}

} // namespace sparsity::core
