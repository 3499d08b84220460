#include "core/pipeline/sparsify_file.h"

#include "core/device/device.h"
#include "core/device/gpu_sparsify.h"
#include "core/io/atomic_output.h"
#include "core/io/file_identity.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/io/sparsifier_state_io.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/densified_rows.h"
#include "core/pipeline/sparsify_blocks.h"
#include "core/pipeline/sparsify_stored_values.h"
#include "core/sparsify/data_sparsifier.h"
#include "core/sparsify/mask_kernels.h"
#include "core/sparsify/sparsifier_methods.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/elapsed.h"
#include "core/util/errors.h"
#include "core/util/memory_bound.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

namespace sparsity::core {
namespace {

template <class T>
std::int64_t nonzeros(const T *values, std::int64_t count)
{
    std::int64_t n = 0;
#pragma omp parallel for reduction(+ : n)
    for (std::int64_t i = 0; i < count; ++i)
        n += values[i] != T(0);
    return n;
}

std::int64_t elementBytes(const ElementInfo &e) { return bytesFor(numel(e.shape), dtypeSize(computeTypeFor(e.dtype))); }

bool overBudget(const ElementInfo &e, std::int64_t budget) { return elementBytes(e) > budget; }

// In memory the element is held densely about three times: data, squashed copy, mask.
constexpr std::int64_t kInMemoryCopies = 3;

bool inMemoryOverBudget(const ElementInfo &e, std::int64_t budget) { return kInMemoryCopies * elementBytes(e) > budget; }

// Over the budget and writable at all: streamed block by block (else held whole, and refused
// by the allocation check when even that cannot be).
bool streams(const SparsifyRequest &request, const ElementInfo &e, std::int64_t budget)
{
    return overBudget(e, budget) && fitsFreeSpaceOf(request.output, elementBytes(e));
}

// Why `e` cannot stream with `c`, or nullopt when it can (room to write it aside).
std::optional<InputError>
streamRefusal(const SparsifyRequest &request, const H5File &input, const ElementInfo &e, const SparsifierConfig &c)
{
    if (e.shape.empty())
        return errors::mustBe("an input larger than memory_limit", "be of rank >= 1 to stream", "a 0-d element");
    if (e.masked && rowReadOf(input, e) != RowRead::ByRows)
        return errors::mustBe("a masked_tensor larger than memory_limit",
                              "hold dense, csr, row_sparse or coo (rows ascending) data and a mask of its "
                              "layout to stream",
                              std::string("one of ") + std::string(layoutName(e.layout)) + " data");
    if (c.method == SparsifierMethod::DataNorm && !blockPipelineCan(request, input, e) && !request.saveState)
        return errors::mustBe("data-norm input", "fit memory_limit (block ranking needs the whole tensor unless it is 2-d)",
                              std::to_string(elementBytes(e)) + " bytes");
    if (request.saveState)
        return errors::mustBe("a saved state", "have every input within memory_limit (the state holds whole tensors)",
                              std::to_string(elementBytes(e)) + " bytes");
    return std::nullopt;
}

// Everything that can be known from metadata is checked before any output exists.
void checkElement(const SparsifyRequest &request, const H5File &input, const ElementInfo &e, std::int64_t budget)
{
    const auto where = input.where(e.path);
    std::optional<InputError> refusal;
    try {
        if (!request.masked)
            requireLayoutCanHold(request.layout, e.shape);
        const auto &c = request.configFor(e.path);
        requireLeastRank(c.method, e.shape.size());
        if (c.method == SparsifierMethod::NM && e.shape.back() % c.m != 0)
            throw errors::mustBe("the last dim (" + std::to_string(e.shape.back()) + ")",
                                 "be a multiple of M=" + std::to_string(c.m), "shape " + shapeToString(e.shape));
        // Its stored values fit: nothing at its dense size is held or written.
        if (storedValuesPathCan(request, e, budget))
            return;
        refusal = streamRefusal(request, input, e, c);
        if (streams(request, e, budget) && refusal)
            throw *refusal;
    } catch (const Error &error) {
        rethrowWithContext(error, where);
    }
    // An element that could stream over the budget streams or fails: when the output's disk is
    // what stops it, say so (held whole, the budget would refuse it).
    if (overBudget(e, budget) && !refusal)
        requireRoomToStream(request.output, elementBytes(e), where);
    if (!streams(request, e, budget))
        requireAllocatable(numel(e.shape), kInMemoryCopies * dtypeSize(computeTypeFor(e.dtype)), where);
}

// The method's mask for `original`, with `dense` (a copy of it) squashed in place. Threshold
// is one fused pass; with useGpu, threshold, n-m and data-norm's block scores run on CUDA.
template <class T>
Mask maskAndSquash(
    DenseTensor<T> &dense, const Tensor &original, const SparsifierConfig &c, bool useGpu, std::int64_t *blocksRemoved)
{
    if constexpr (std::is_same_v<T, float>) { // useGpu: the method has a kernel (factsOf(method).cuda)
        if (useGpu && c.method == SparsifierMethod::Threshold)
            return thresholdSquashOnGpu(dense, static_cast<float>(c.threshold));
        if (useGpu && (c.method == SparsifierMethod::NM || c.method == SparsifierMethod::DataNorm)) {
            auto mask =
                c.method == SparsifierMethod::NM ? nmMaskOnGpu(dense, c.n, c.m) : dataNormMaskOnGpu(dense, c, blocksRemoved);
            applyMask(dense.values.data(), mask.data(), dense.numel());
            return mask;
        }
    }
    if (c.method == SparsifierMethod::Threshold) {
        Mask mask(static_cast<std::size_t>(dense.numel()));
        thresholdSquash(dense.values.data(), dense.values.data(), mask.data(), dense.numel(), static_cast<T>(c.threshold));
        return mask;
    }
    auto mask = computeMask(original, c, blocksRemoved);
    applyMask(dense.values.data(), mask.data(), dense.numel());
    return mask;
}

template <class T>
SparsifiedElement inMemory(const SparsifyRequest &request,
                           const H5File &input,
                           const ElementInfo &e,
                           H5File &out,
                           ValidationReport &report,
                           SparsifierStateEntry *stateEntry,
                           bool useGpu)
{
    SparsifiedElement r;
    r.path = e.path;
    r.shape = e.shape;
    // With several ranks, each computes the element whole (it fits every rank's budget) and
    // the root writes it; a rank that fails stops them all before the write.
    std::optional<Tensor> original, result;
    Mask mask;
    agreeOn(ranks(), [&] {
        auto start = Clock::now();
        const auto tensor = readTensor(input, e.path, &report);
        r.ioSeconds += secondsSince(start);
        start = Clock::now();
        // A masked input's unspecified elements 0, and which are specified: one conversion.
        std::optional<Mask> specified;
        DenseTensor<T> dense;
        if (tensor.isMasked()) {
            dense = {tensor.shape(), Buffer<T>(static_cast<std::size_t>(numel(tensor.shape())))};
            specified.emplace(dense.values.size());
            toDenseWithSpecifiedInto(tensor, dense.values.data(), specified->data());
        } else {
            dense = toDenseAs<T>(tensor);
        }
        original.emplace(Storage{dense});
        r.nnzBefore = nonzeros(dense.values.data(), dense.numel());
        try {
            mask = maskAndSquash(dense, *original, request.configFor(e.path), useGpu, &r.blocksRemoved);
        } catch (const Error &error) {
            rethrowWithContext(error, input.where(e.path));
        }
        // A masked input's unspecified elements are never kept: a threshold of 0 made them
        // specified zeros of the output, and counted them as pruned above it.
        if (specified)
            for (std::size_t i = 0; i < mask.size(); ++i)
                mask[i] = mask[i] && (*specified)[i];
        r.held = specified ? countKept(specified->data(), dense.numel()) : dense.numel();
        r.nnzAfter = nonzeros(dense.values.data(), dense.numel());
        r.pruned = r.held - countKept(mask.data(), dense.numel());
        const auto &values = std::get<DenseTensor<T>>(original->storage()).values;
        const auto [lo, hi] = finiteRange(values.data(), dense.numel());
        r.histogramBefore = histogram(values.data(), dense.numel(), 32, lo, hi, specified ? specified->data() : nullptr);
        r.histogramAfter = histogram(values.data(), dense.numel(), 32, lo, hi, mask.data());
        result = request.masked ? Tensor(Storage{toDenseAs<T>(*original)}, mask)
                                : toLayout(Tensor(Storage{std::move(dense)}), request.layout);
        r.computeSeconds = secondsSince(start);
    });
    auto start = Clock::now();
    writeTensor(out, e.path, *result, request.writeOptions);
    r.ioSeconds += secondsSince(start);
    if (stateEntry)
        *stateEntry = {"", std::move(*original), std::move(mask), request.configFor(e.path)};
    return r;
}

// Every element given its own sparsifier must be one that is sparsified.
void checkPerDataset(const SparsifyRequest &request, const H5File &input, const std::vector<ElementInfo> &elements)
{
    for (const auto &[path, config] : request.perDataset) {
        config.validate();
        // An init-capture: clang before 16 cannot capture a structured binding.
        const bool selected =
            std::any_of(elements.begin(), elements.end(), [&name = path](const auto &e) { return e.path == name; });
        if (!selected)
            throw InputError(input.where(path) + ": has its own sparsifier but is not among the datasets sparsified");
    }
}

} // namespace

const SparsifierConfig &SparsifyRequest::configFor(const std::string &path) const
{
    const auto own = perDataset.find(path);
    return own == perDataset.end() ? config : own->second;
}

std::vector<SparsifiedElement>
sparsifyFile(const SparsifyRequest &request, ValidationReport &report, const ProgressCallback &progress)
{
    // Everything before the output exists is checked by every rank; one that cannot read the
    // input stops them all here.
    bool useGpu = false;
    std::optional<H5File> opened;
    std::vector<ElementInfo> elements;
    std::int64_t budget = 0;
    agreeOn(ranks(), [&] {
        request.config.validate();
        useGpu = resolveDevice(request.device) == Device::Cuda;
        refuseOverwritingInput(request.output, request.input);
        opened.emplace(H5File::openRead(request.input));
        elements = selectElements(*opened, request.datasets, &report);
        checkPerDataset(request, *opened, elements);
        budget = resolveMemoryLimit(request.memoryLimit);
        for (const auto &e : elements)
            checkElement(request, *opened, e, budget);
    });
    const H5File &input = *opened;

    AtomicOutput output(request.output);
    std::vector<SparsifiedElement> results;
    SparsifierState state;
    std::int64_t done = 0;
    for (const auto &e : elements) {
        reportProgress(progress, done++, static_cast<std::int64_t>(elements.size()));
        // The block pipeline unless the GPU is asked for, the method has a CUDA kernel and the
        // element fits in memory; every rank takes the same path (in blocks only when every
        // rank would).
        const bool onGpu = useGpu && factsOf(request.configFor(e.path).method).cuda
                           && computeTypeFor(e.dtype) == DType::Float32; // the kernels take float32
        // A threshold of a sparse element into a sparse layout, on its stored values alone when
        // they fit (on the CPU, even with the GPU asked for: a pass over what it stores costs
        // less than moving its dense form there; docs/PERFORMANCE.md).
        const bool storedValues = ranks().onEveryRank(storedValuesPathCan(request, e, budget));
        // A coo or csc element whose in-memory copies fit the budget is held whole: blocks would
        // hold its entries and their coalesced copy beside them, which may not fit where its
        // dense form does. Past that it streams (read by bands where its entries do not fit):
        // a 2-million-row coo of 64 MB dense took 222 MiB whole under a 64M budget.
        // A csr or row_sparse one is read by rows as a dense one is (in memory, held densely,
        // 3.6 GB and 7.8 s for a 1.5 GiB csr; in blocks, 1.6 GB and 2.1 s).
        const bool heldWhole = rowReadOf(input, e) == RowRead::Whole;
        const bool inBlocks =
            !storedValues
            && ranks().onEveryRank(blockPipelineCan(request, input, e)
                                   && (heldWhole ? inMemoryOverBudget(e, budget) : !onGpu || overBudget(e, budget))
                                   && fitsFreeSpaceOf(request.output, elementBytes(e)));
        SparsifierStateEntry entry;
        SparsifierStateEntry *stateEntry = request.saveState ? &entry : nullptr;
        const Device device = onGpu && !inBlocks && !storedValues ? Device::Cuda : Device::Cpu;
        const double deviceInit = agreeOn(ranks(), [&] { return initDevice(device); });
        auto r = withAllocationContext(input.where(e.path), "sparsifying it", [&] {
            if (storedValues)
                return sparsifyStoredValues(request, input, e, output.file(), report);
            if (inBlocks)
                return sparsifyInBlocks(request, input, e, output.file(), report, budget);
            return withComputeType(e.dtype, [&](auto typeTag) {
                return inMemory<decltype(typeTag)>(request, input, e, output.file(), report, stateEntry, onGpu);
            });
        });
        r.sparsity = r.held == 0 ? 0.0 : static_cast<double>(r.pruned) / static_cast<double>(r.held);
        r.device = device;
        r.deviceInitSeconds = deviceInit;
        results.push_back(r);
        if (stateEntry) {
            // State names may not contain '.' or '/': the element path with '/' -> '_'.
            std::string name = e.path.substr(1);
            std::replace(name.begin(), name.end(), '/', '_');
            std::replace(name.begin(), name.end(), '.', '_');
            entry.name = name;
            state.push_back(std::move(entry));
        }
    }
    if (request.saveState)
        writeSparsifierState(output.file(), "/sparsifier_state", state);
    reportProgress(progress, done, static_cast<std::int64_t>(elements.size()));
    output.commit();
    return results;
}

} // namespace sparsity::core
