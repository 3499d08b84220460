#include "core/pipeline/sparsify_stored_values.h"

#include "core/io/h5_reader.h"
#include "core/parallel/rank_group.h"
#include "core/sparsify/sparsify_tally.h"
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/tensor.h"

#include <chrono>
#include <optional>

namespace sparsity::core {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

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
        r.ioSeconds += since(start);
        start = Clock::now();
        auto &c = std::get<CompressedTensor<T>>(tensor.storage());
        const auto unstored = numel(e.shape) - c.nnz();
        FiniteRange range;
        finiteRangeOf(c.values.data(), c.nnz(), range);
        if (unstored > 0) { // the dense form's range takes in its zeros
            range.lo = std::min(range.lo, 0.0);
            range.hi = std::max(range.hi, 0.0);
        }
        SparsifyTally tally(range.bounds());
        thresholdAndTally(c.values.data(), nullptr, c.nnz(), threshold, true, tally);
        thresholdAndTallyZeros(unstored, threshold, tally);
        dropZeros(c);
        r.nnzBefore = tally.nnzBefore;
        r.nnzAfter = tally.nnzAfter;
        r.pruned = tally.pruned;
        r.histogramBefore = tally.histogramBefore();
        r.histogramAfter = tally.histogramAfter();
        result.emplace(std::move(tensor));
        r.computeSeconds = since(start);
    });
    const auto start = Clock::now();
    writeTensor(output, e.path, *result, request.writeOptions);
    r.ioSeconds += since(start);
    return r;
}

} // namespace

bool storedValuesPathCan(const SparsifyRequest &request, const ElementInfo &e, std::int64_t budgetBytes)
{
    if (request.configFor(e.path).method != SparsifierMethod::Threshold || request.saveState || request.masked || e.masked
        || request.layout != e.layout || (e.layout != Layout::Csr && e.layout != Layout::Csc) || !e.nnz || e.shape.size() != 2)
        return false;
    // Held at once: the entries and their pointers as read, and about as much again while the
    // read repairs I7 (a sorted copy) or the writer gathers them.
    const auto perEntry = static_cast<std::int64_t>(dtypeSize(computeTypeFor(e.dtype))) + 8;
    const std::int64_t pointers = 8 * ((e.layout == Layout::Csr ? e.shape[0] : e.shape[1]) + 1);
    const std::int64_t share = budgetBytes / 2;
    return *e.nnz >= 0 && pointers <= share && *e.nnz <= (share - pointers) / perEntry;
}

SparsifiedElement sparsifyStoredValues(
    const SparsifyRequest &request, const H5File &input, const ElementInfo &e, H5File &output, ValidationReport &report)
{
    return withComputeType(e.dtype,
                           [&](auto typeTag) { return thresholdStored<decltype(typeTag)>(request, input, e, output, report); });
}

} // namespace sparsity::core
