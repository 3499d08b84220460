// The expression evaluator's fused programs on CUDA: one interpreter kernel runs any
// ElementwiseProgram per element with the same scalar functions as the CPU
// (core/masked/element_ops.h); reductions evaluate the program inside the reduction kernel,
// so the reduced expression is never materialised on the device either.
#include "core/cuda/device_array.h"
#include "core/cuda/program_kernels.h"

#include <map>
#include <memory>
#include <vector>

namespace sparsity::core::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxInstructions = 48;
constexpr int kMaxLeaves = 24;

struct DeviceInstruction {
    ElementOp op;
    std::uint8_t fromRegister[3];
    int index[3];
};

// Passed by value as a kernel parameter (well under the 4 KiB limit).
template <class T>
struct DeviceProgram {
    DeviceInstruction instructions[kMaxInstructions];
    int instructionCount;
    const T *leaves[kMaxLeaves];
    T broadcastValue[kMaxLeaves];
    bool broadcast[kMaxLeaves];
    bool resultFromRegister;
    int resultIndex;
};

template <class T>
__device__ T operandAt(const DeviceProgram<T> &p, const T *registers, bool fromRegister, int index, std::int64_t i)
{
    if (fromRegister)
        return registers[index];
    return p.broadcast[index] ? p.broadcastValue[index] : p.leaves[index][i];
}

template <class T>
__device__ T evaluateAt(const DeviceProgram<T> &p, std::int64_t i)
{
    T registers[kMaxInstructions];
    for (int k = 0; k < p.instructionCount; ++k) {
        const DeviceInstruction &in = p.instructions[k];
        const int arity = elementOpArity(in.op);
        const T a = operandAt(p, registers, in.fromRegister[0], in.index[0], i);
        const T b = arity > 1 ? operandAt(p, registers, in.fromRegister[1], in.index[1], i) : T(0);
        const T c = arity > 2 ? operandAt(p, registers, in.fromRegister[2], in.index[2], i) : T(0);
        registers[k] = applyElementOp(in.op, a, b, c);
    }
    return operandAt(p, registers, p.resultFromRegister, p.resultIndex, i);
}

template <class T>
__global__ void evaluateKernel(DeviceProgram<T> p, std::int64_t numel, T *out)
{
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < numel;
         i += std::int64_t(gridDim.x) * blockDim.x)
        out[i] = evaluateAt(p, i);
}

__device__ double combine(int op, double acc, double v)
{
    switch (op) {
    case 2:
        return maximumOf(acc, v); // ReduceOp::Amax
    case 3:
        return minimumOf(acc, v); // ReduceOp::Amin
    case 4:
        return acc + v * v; // ReduceOp::Norm
    default:
        return acc + v; // Sum, Mean
    }
}

// One block per (output, chunk of the reduced dim); partial results to `partialValue/Count`.
template <class T>
__global__ void reduceKernel(DeviceProgram<T> p,
                             const std::uint8_t *mask,
                             int op,
                             std::int64_t n,
                             std::int64_t inner,
                             int chunks,
                             double identity,
                             double *partialValue,
                             std::int64_t *partialCount)
{
    __shared__ double values[kThreads];
    __shared__ std::int64_t counts[kThreads];
    const std::int64_t output = blockIdx.x / chunks;
    const std::int64_t chunk = blockIdx.x % chunks;
    const std::int64_t o = output / inner, i = output % inner;
    const std::int64_t per = (n + chunks - 1) / chunks;
    const std::int64_t first = chunk * per, last = min(n, first + per);
    double acc = identity;
    std::int64_t count = 0;
    for (std::int64_t j = first + threadIdx.x; j < last; j += blockDim.x) {
        const std::int64_t e = (o * n + j) * inner + i;
        if (mask && !mask[e])
            continue;
        acc = combine(op, acc, static_cast<double>(evaluateAt(p, e)));
        ++count;
    }
    values[threadIdx.x] = acc;
    counts[threadIdx.x] = count;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            const double other = values[threadIdx.x + stride];
            values[threadIdx.x] = op == 2   ? maximumOf(values[threadIdx.x], other)
                                  : op == 3 ? minimumOf(values[threadIdx.x], other)
                                            : values[threadIdx.x] + other;
            counts[threadIdx.x] += counts[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partialValue[blockIdx.x] = values[0];
        partialCount[blockIdx.x] = counts[0];
    }
}

unsigned blocksFor(std::int64_t n)
{
    return static_cast<unsigned>(std::min<std::int64_t>((n + kThreads - 1) / kThreads, 65535 * 8));
}

// The program with its leaves uploaded (each distinct host array once).
template <class T>
struct UploadedProgram {
    DeviceProgram<T> program{};
    std::vector<std::unique_ptr<DeviceArray<T>>> arrays;

    bool upload(const GpuProgramView<T> &view, std::string *error)
    {
        if (view.instructionCount > kMaxInstructions || view.leafCount > kMaxLeaves) {
            *error = "the expression has " + std::to_string(view.instructionCount) + " operations and "
                     + std::to_string(view.leafCount) + " operands; the CUDA interpreter takes at most "
                     + std::to_string(kMaxInstructions) + " and " + std::to_string(kMaxLeaves);
            return false;
        }
        program.instructionCount = view.instructionCount;
        for (int k = 0; k < view.instructionCount; ++k) {
            const Instruction &in = view.instructions[k];
            program.instructions[k].op = in.op;
            for (int a = 0; a < 3; ++a) {
                program.instructions[k].fromRegister[a] = in.args[a].source == ProgramOperand::Source::Register;
                program.instructions[k].index[a] = in.args[a].index;
            }
        }
        std::map<const T *, const T *> uploaded;
        for (int l = 0; l < view.leafCount; ++l) {
            const ProgramLeaf<T> &leaf = view.leaves[l];
            program.broadcast[l] = leaf.broadcast;
            program.broadcastValue[l] = leaf.broadcast ? *leaf.data : T(0);
            program.leaves[l] = nullptr;
            if (leaf.broadcast)
                continue;
            auto &device = uploaded[leaf.data];
            if (!device) {
                arrays.push_back(std::make_unique<DeviceArray<T>>());
                if (!arrays.back()->upload(leaf.data, view.numel, error))
                    return false;
                device = arrays.back()->ptr;
            }
            program.leaves[l] = device;
        }
        program.resultFromRegister = view.result.source == ProgramOperand::Source::Register;
        program.resultIndex = view.result.index;
        return true;
    }
};

} // namespace

template <class T>
bool evaluateProgram(const GpuProgramView<T> &view, T *out, std::string *error)
{
    UploadedProgram<T> uploaded;
    DeviceArray<T> dOut;
    if (!uploaded.upload(view, error) || !dOut.allocate(view.numel, error))
        return false;
    if (view.numel > 0)
        evaluateKernel<<<blocksFor(view.numel), kThreads>>>(uploaded.program, view.numel, dOut.ptr);
    return !failed(cudaGetLastError(), "program kernel", error) && dOut.download(out, view.numel, error);
}

template <class T>
bool reduceProgram(const GpuReduceJob<T> &job, std::string *error)
{
    const std::int64_t outputs = job.outer * job.inner;
    const double identity = job.op == 2 ? -INFINITY : job.op == 3 ? INFINITY : 0.0;
    if (outputs == 0)
        return true;
    // Enough blocks to fill the device even for a full reduction (one output).
    const int chunks = static_cast<int>(std::max<std::int64_t>(
        1, std::min<std::int64_t>((job.n + kThreads * 16 - 1) / (kThreads * 16), (4096 + outputs - 1) / outputs)));
    UploadedProgram<T> uploaded;
    DeviceArray<std::uint8_t> dMask;
    DeviceArray<double> dValue;
    DeviceArray<std::int64_t> dCount;
    if (!uploaded.upload(job.program, error) || (job.mask && !dMask.upload(job.mask, job.program.numel, error))
        || !dValue.allocate(outputs * chunks, error) || !dCount.allocate(outputs * chunks, error))
        return false;
    reduceKernel<<<static_cast<unsigned>(outputs * chunks), kThreads>>>(
        uploaded.program, job.mask ? dMask.ptr : nullptr, job.op, job.n, job.inner, chunks, identity, dValue.ptr, dCount.ptr);
    std::vector<double> values(static_cast<std::size_t>(outputs * chunks));
    std::vector<std::int64_t> counts(values.size());
    if (failed(cudaGetLastError(), "reduction kernel", error) || !dValue.download(values.data(), outputs * chunks, error)
        || !dCount.download(counts.data(), outputs * chunks, error))
        return false;
    for (std::int64_t r = 0; r < outputs; ++r) {
        double acc = identity;
        std::int64_t count = 0;
        for (int c = 0; c < chunks; ++c) {
            const auto k = static_cast<std::size_t>(r * chunks + c);
            acc = job.op == 2 ? maximumOf(acc, values[k]) : job.op == 3 ? minimumOf(acc, values[k]) : acc + values[k];
            count += counts[k];
        }
        job.accumulators[r] = acc;
        job.counts[r] = count;
    }
    return true;
}

template bool evaluateProgram<float>(const GpuProgramView<float> &, float *, std::string *);
template bool evaluateProgram<double>(const GpuProgramView<double> &, double *, std::string *);
template bool reduceProgram<float>(const GpuReduceJob<float> &, std::string *);
template bool reduceProgram<double>(const GpuReduceJob<double> &, std::string *);

} // namespace sparsity::core::cuda
