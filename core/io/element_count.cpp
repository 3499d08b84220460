#include "core/io/element_count.h"

#include "core/io/element_rows.h"
#include "core/io/h5_chunk_count.h"
#include "core/parallel/rank_group.h"
#include "core/tensor/conversions.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <limits>

namespace sparsity::core {

std::int64_t countNonzeros(const H5File &file, const ElementInfo &element, CountShare share)
{
    // Sparse and 0-d elements, and masked ones not read by rows, are counted by rank 0: a sparse
    // one from its metadata, the others read whole. A dense dataset, and a masked_tensor read by
    // rows, are counted by rows (each rank its own).
    const auto byRootAlone = [&](const auto &count) -> std::int64_t { return share.rank == 0 ? count() : 0; };
    if (element.layout != Layout::Dense && !element.masked)
        return byRootAlone([&] { return element.nnz.value_or(0); });
    if (element.shape.empty())
        return byRootAlone([&]() -> std::int64_t {
            const auto tensor = readTensor(file, element.path);
            return element.masked ? tensor.specifiedCount() : toDenseDouble(tensor).values[0] != 0.0;
        });
    if (const auto count = element.masked ? std::nullopt : countNonzerosByChunk(file, element, share))
        return *count;
    // Opened once: whether it reads by rows is its layout's reader's to say (a coo's rows are
    // scanned to see that they ascend).
    ElementRowReader reader(file, element.path);
    if (!reader.readsByRows())
        return byRootAlone([&] { return readTensor(file, element.path).specifiedCount(); });
    // About 16 MiB of rows per read, less under a smaller memory budget: 8 bytes an element
    // (a value read in float64), or a coo's 48 where every element is stored (its coordinates
    // and value as read, and a mask's byte, with room to spare).
    const auto rowElements = std::max<std::int64_t>(1, numel(element.shape, 1, element.shape.size()));
    const std::int64_t bytesPerElement = element.layout == Layout::Coo ? 48 : 8;
    const auto chunkBytes = std::min<std::int64_t>(std::int64_t{16} << 20,
                                                   wholeTensorBudget().value_or(std::numeric_limits<std::int64_t>::max()) / 2);
    const auto chunkRows = std::max<std::int64_t>(1, chunkBytes / (bytesPerElement * rowElements));
    const auto mine = rowsOfRank(element.shape[0], chunkRows, share.rank, share.size);
    std::int64_t count = 0;
    for (std::int64_t begin = mine.begin; begin < mine.end; begin += chunkRows) {
        const auto chunk = reader.readRows({begin, std::min(mine.end, begin + chunkRows)});
        if (element.masked)
            count += chunk.specifiedCount();
        else
            chunk.visit(
                [&](const auto &t) { count += std::count_if(t.values.begin(), t.values.end(), [](auto v) { return v != 0; }); });
    }
    return count;
}

} // namespace sparsity::core
