// Optimizer steps on the GPU. One fused kernel per step applies the step's rule (from
// core/optim/rule_dispatch.h, the same formulas and scalars as the CPU sweep) to the step's
// pattern: every element, whole rows, or listed elements; a second tiny kernel records the
// rows written. Parameter and states stay on the device for the whole run.
#include "core/cuda/cuda_check.h"
#include "core/cuda/device_array.h"
#include "core/cuda/optimizer_steps.h"
#include "core/optim/rule_dispatch.h"

#include <algorithm>
#include <vector>

namespace sparsity::core::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(std::int64_t n)
{
    return static_cast<unsigned>(std::min<std::int64_t>((n + kThreads - 1) / kThreads, 65535 * 8));
}

template <class T, class Rule>
__global__ void sweepAll(Rule rule, const T *g, std::int64_t n, bool firstStep)
{
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
        rule(i, g[i], firstStep);
}

// Rows: value e belongs to row rows[e / width], column e % width. Elements: value e is
// element indices[e]. A momentum buffer starts on the parameter's first step.
template <class T, class Rule>
__global__ void sweepIndexed(
    Rule rule, const std::int64_t *indices, const T *g, std::int64_t valueCount, std::int64_t width, bool rows, bool firstStep)
{
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < valueCount;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t i = rows ? indices[e / width] * width + e % width : indices[e];
        rule(i, g[e], firstStep);
    }
}

__global__ void
markRows(std::int64_t *lastUpdate, const std::int64_t *indices, std::int64_t count, std::int64_t divisor, std::int64_t step)
{
    for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < count;
         k += std::int64_t(gridDim.x) * blockDim.x)
        lastUpdate[indices[k] / divisor] = step; // every writer stores the same value
}

__global__ void markAll(std::int64_t *lastUpdate, std::int64_t rows, std::int64_t step)
{
    for (std::int64_t r = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; r < rows;
         r += std::int64_t(gridDim.x) * blockDim.x)
        lastUpdate[r] = step;
}

} // namespace

template <class T>
bool optimizerSteps(const GpuStepJob<T> &job, std::string *error)
{
    const auto n = static_cast<std::size_t>(job.numel);
    const auto rows = static_cast<std::size_t>(job.rows);
    DeviceArray<T> param, state0, state1, values;
    DeviceArray<std::int64_t> lastUpdate, indices;
    if (!param.upload(job.param, n, error) || (job.state0 && !state0.upload(job.state0, n, error))
        || (job.state1 && !state1.upload(job.state1, n, error)) || !lastUpdate.upload(job.lastUpdate, rows, error))
        return false;
    for (std::int64_t k = 0; k < job.patternCount; ++k) {
        const auto &p = job.patterns[k];
        if (!values.upload(p.values, static_cast<std::size_t>(p.valueCount), error)
            || (p.indexCount > 0 && !indices.upload(p.indices, static_cast<std::size_t>(p.indexCount), error)))
            return false;
        const bool firstStep = *job.step == 0;
        const std::int64_t step = ++*job.step;
        withRule(job.options, step, StatePointers<T>{param.ptr, state0.ptr, state1.ptr}, [&](const auto &rule) {
            if (p.kind == 0)
                sweepAll<<<blocksFor(p.valueCount), kThreads>>>(rule, values.ptr, p.valueCount, firstStep);
            else if (p.valueCount > 0)
                sweepIndexed<<<blocksFor(p.valueCount), kThreads>>>(rule, indices.ptr, values.ptr, p.valueCount, p.rowWidth,
                                                                    p.kind == 1, firstStep);
        });
        if (failed(cudaGetLastError(), "optimizer step kernel", error))
            return false;
        if (p.kind == 0)
            markAll<<<blocksFor(job.rows), kThreads>>>(lastUpdate.ptr, job.rows, step);
        else if (p.indexCount > 0)
            markRows<<<blocksFor(p.indexCount), kThreads>>>(lastUpdate.ptr, indices.ptr, p.indexCount,
                                                            p.kind == 1 ? 1 : p.rowWidth, step);
        if (failed(cudaGetLastError(), "last-update kernel", error))
            return false;
    }
    return param.download(job.param, n, error) && (!job.state0 || state0.download(job.state0, n, error))
           && (!job.state1 || state1.download(job.state1, n, error)) && lastUpdate.download(job.lastUpdate, rows, error);
}

template bool optimizerSteps<float>(const GpuStepJob<float> &, std::string *);
template bool optimizerSteps<double>(const GpuStepJob<double> &, std::string *);

} // namespace sparsity::core::cuda
