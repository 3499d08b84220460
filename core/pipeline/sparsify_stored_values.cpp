#include "core/pipeline/sparsify_stored_values.h"

#include "core/io/h5_reader.h"
#include "core/parallel/rank_group.h"
#include "core/sparsify/sparsify_tally.h"
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/conversions.h"
#include "core/tensor/coo_tensor.h"
#include "core/tensor/row_sparse_tensor.h"
#include "core/tensor/tensor.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/elapsed.h"
#include "core/util/errors.h"

#include <algorithm>
#include <optional>
#include <type_traits>
#include <variant>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// The entries squashed to zero, and stored zeros, leave: what converting the squashed dense form
// keeps (its nonzeros, NaN among them), in the same order. In place, one pass.
template <class T>
void dropZeros(CompressedTensor<T> &c)
{
    std::int64_t kept = 0;
    for (std::int64_t major = 0; major < c.majorSize(); ++major) {
        const auto first = c.indptr[at(major)], last = c.indptr[at(major + 1)];
        c.indptr[at(major)] = kept;
        for (auto k = first; k < last; ++k)
            if (c.values[at(k)] != T(0)) {
                c.indices[at(kept)] = c.indices[at(k)];
                c.values[at(kept)] = c.values[at(k)];
                ++kept;
            }
    }
    c.indptr[at(c.majorSize())] = kept;
    c.indices.resize(at(kept));
    c.values.resize(at(kept));
}

template <class T>
void dropZeros(CooTensor<T> &coo) // every dim sparse
{
    const int dims = coo.sparseDims;
    std::int64_t kept = 0;
    for (std::int64_t k = 0; k < coo.nnz; ++k)
        if (coo.values[at(k)] != T(0)) {
            for (int d = 0; d < dims; ++d)
                coo.indices[at(d * coo.nnz + kept)] = coo.indices[at(d * coo.nnz + k)];
            coo.values[at(kept)] = coo.values[at(k)];
            ++kept;
        }
    // Dim d's indices start at d * nnz: packed again for the new count.
    for (int d = 1; d < dims; ++d)
        std::copy_n(coo.indices.begin() + d * coo.nnz, kept, coo.indices.begin() + d * kept);
    coo.nnz = kept;
    coo.indices.resize(at(dims * kept));
    coo.values.resize(at(kept));
}

// Every element the tensor stores, once: every dim sparse, duplicates summed in stored order
// (as densifying sums them), in row-major order.
template <class T>
CooTensor<T> elementEntries(const Storage &storage)
{
    return std::visit(
        [](const auto &t) -> CooTensor<T> {
            using S = std::decay_t<decltype(t)>;
            if constexpr (std::is_same_v<S, CooTensor<T>>)
                return coalesce(cooExpandDenseDims(t));
            else if constexpr (std::is_same_v<S, CompressedTensor<T>>)
                return compressedToCoo(t); // canonical once read (I7 repaired)
            else if constexpr (std::is_same_v<S, RowSparseTensor<T>>)
                return cooExpandDenseDims(rowSparseToCoo(t)); // rows sorted and unique (R4)
            else
                throw InternalError("sparsify on stored values: a sparse element expected");
        },
        storage);
}

// The threshold over `values` and the `unstored` zeros beside them, tallied as the dense form
// would be; pruned values set to 0.
template <class T>
SparsifyTally thresholdAndTallyStored(Buffer<T> &values, std::int64_t unstored, T threshold)
{
    const auto stored = static_cast<std::int64_t>(values.size());
    FiniteRange range;
    finiteRangeOf(values.data(), stored, range);
    if (unstored > 0) { // the dense form's range takes in its zeros
        const T zero{};
        finiteRangeOf(&zero, 1, range);
    }
    SparsifyTally tally(range.bounds());
    thresholdAndTally(values.data(), nullptr, stored, threshold, true, tally);
    thresholdAndTallyZeros(unstored, threshold, tally);
    return tally;
}

// A csr or csc element into its own layout: thresholded where it lies. Any other: its element
// entries thresholded, then converted (the squashed dense form converted holds the same).
template <class T>
Tensor thresholdStoredValues(Tensor tensor, Layout target, T threshold, SparsifyTally &tally)
{
    const auto elements = numel(tensor.shape());
    if (auto *c = std::get_if<CompressedTensor<T>>(&tensor.storage());
        c && target == (c->axis == CompressedAxis::Row ? Layout::Csr : Layout::Csc)) {
        tally = thresholdAndTallyStored(c->values, elements - c->nnz(), threshold);
        dropZeros(*c);
        return tensor;
    }
    auto entries = elementEntries<T>(tensor.storage());
    tensor = Tensor(); // the read's copy is not needed beside the entries
    tally = thresholdAndTallyStored(entries.values, elements - entries.nnz, threshold);
    dropZeros(entries);
    return toLayout(Tensor(Storage{std::move(entries)}), target);
}

template <class T>
SparsifiedElement thresholdStored(
    const SparsifyRequest &request, const H5File &input, const ElementInfo &e, H5File &output, ValidationReport &report)
{
    SparsifiedElement r;
    r.path = e.path;
    r.shape = e.shape;
    r.held = numel(e.shape); // unmasked: every element holds data (an unstored one a 0)
    r.storedValuesOnly = true;
    const auto threshold = static_cast<T>(request.configFor(e.path).threshold);
    // As in memory: every rank computes it (it fits every rank's budget), the root writes it.
    std::optional<Tensor> result;
    agreeOn(ranks(), [&] {
        auto start = Clock::now();
        Tensor tensor = readTensor(input, e.path, &report);
        r.ioSeconds += secondsSince(start);
        start = Clock::now();
        SparsifyTally tally;
        result.emplace(thresholdStoredValues(std::move(tensor), request.layout, threshold, tally));
        r.nnzBefore = tally.nnzBefore;
        r.nnzAfter = tally.nnzAfter;
        r.pruned = tally.pruned;
        r.histogramBefore = tally.histogramBefore();
        r.histogramAfter = tally.histogramAfter();
        r.computeSeconds = secondsSince(start);
    });
    const auto start = Clock::now();
    writeTensor(output, e.path, *result, request.writeOptions);
    r.ioSeconds += secondsSince(start);
    return r;
}

// 8 bytes per pointer of a compressed layout over `shape` (its major size + 1), or nullopt when
// that exceeds `limit` (computed without overflow: a declared shape may be absurd).
std::optional<std::int64_t> pointerBytes(Layout layout, const Shape &shape, std::int64_t limit)
{
    if (!layoutInfo(layout).compressed)
        return 0;
    if (shape.size() != 2)
        return std::nullopt;
    const auto major = layout == Layout::Csr ? shape[0] : shape[1];
    if (major >= limit / 8)
        return std::nullopt;
    return 8 * (major + 1);
}

} // namespace

bool storedValuesPathCan(const SparsifyRequest &request, const ElementInfo &e, std::int64_t budgetBytes)
{
    if (request.configFor(e.path).method != SparsifierMethod::Threshold || request.saveState || request.masked || e.masked
        || e.layout == Layout::Dense || request.layout == Layout::Dense || !e.nnz || *e.nnz < 0 || budgetBytes <= 0)
        return false;
    const auto rank = static_cast<std::int64_t>(e.shape.size());
    const auto valueBytes = static_cast<std::int64_t>(dtypeSize(computeTypeFor(e.dtype)));
    // Held at once. In its own layout: the entries and pointers as read, and about as much again
    // while the read repairs I7 (a sorted copy) or the writer gathers them. Otherwise: the read,
    // its element entries (an index per dim each), their coalesced copy and the conversion,
    // with the result's pointers.
    const bool inPlace = layoutInfo(e.layout).compressed && request.layout == e.layout;
    const std::int64_t share = budgetBytes / (inPlace ? 2 : 4);
    const auto pointersIn = pointerBytes(e.layout, e.shape, share);
    const auto pointersOut = inPlace ? std::optional<std::int64_t>(0) : pointerBytes(request.layout, e.shape, share);
    if (!pointersIn || !pointersOut || *pointersIn + *pointersOut > share)
        return false;
    const std::int64_t perValue = valueBytes + (inPlace ? 8 : 8 * rank);
    if (*e.nnz > (share - *pointersIn - *pointersOut) / perValue)
        return false;
    // A row_sparse result holds every row it keeps whole: up to a row for each stored value.
    if (request.layout == Layout::RowSparse) {
        const auto rows = std::min(*e.nnz, e.shape[0]);
        if (rows == 0 || std::any_of(e.shape.begin() + 1, e.shape.end(), [](std::int64_t n) { return n == 0; }))
            return true;
        const auto perRow = budgetBytes / 2 / rows; // bytes a row may take, its row number's 8 among them
        if (perRow <= 8)
            return false;
        // The row's values, numel(shape[1:]), must fit: a product that may overflow, taken by division.
        std::int64_t room = (perRow - 8) / valueBytes;
        for (std::size_t d = 1; d < e.shape.size(); room /= e.shape[d], ++d)
            if (e.shape[d] > room)
                return false;
    }
    return true;
}

SparsifiedElement sparsifyStoredValues(
    const SparsifyRequest &request, const H5File &input, const ElementInfo &e, H5File &output, ValidationReport &report)
{
    return withComputeType(e.dtype,
                           [&](auto typeTag) { return thresholdStored<decltype(typeTag)>(request, input, e, output, report); });
}

} // namespace sparsity::core
