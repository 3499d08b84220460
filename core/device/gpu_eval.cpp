#include "core/device/gpu_eval.h"

#include "core/device/device.h"
#include "core/device/gpu_backend.h"
#include "core/util/errors.h"

namespace sparsity::core {
namespace {

// The CUDA kernels take the op as an int (their translation unit stays C++17).
static_assert(static_cast<int>(ReduceOp::Sum) == 0 && static_cast<int>(ReduceOp::Mean) == 1
              && static_cast<int>(ReduceOp::Amax) == 2 && static_cast<int>(ReduceOp::Amin) == 3
              && static_cast<int>(ReduceOp::Norm) == 4);

const GpuBackend &backend()
{
    resolveDevice(DeviceChoice::Cuda); // throws the "no device" InputError
    return *gpuBackend();
}

template <class T>
GpuProgramView<T> viewOf(const ElementwiseProgram<T> &program, std::int64_t numel)
{
    return {program.instructions().data(),
            static_cast<int>(program.instructions().size()),
            program.leaves().data(),
            static_cast<int>(program.leaves().size()),
            program.result(),
            numel};
}

void check(bool ok, const char *what, const std::string &error)
{
    if (!ok)
        throw InternalError(std::string(what) + " on CUDA failed: " + error);
}

} // namespace

template <class T>
void evaluateOnGpu(const ElementwiseProgram<T> &program, std::int64_t numel, T *out)
{
    const auto &gpu = backend();
    std::string error;
    const auto view = viewOf(program, numel);
    if constexpr (std::is_same_v<T, float>)
        check(gpu.evaluateProgramF32(view, out, &error), "expression", error);
    else
        check(gpu.evaluateProgramF64(view, out, &error), "expression", error);
}

template <class T>
MaskedValue<T>
reduceOnGpu(const ElementwiseProgram<T> &program, const Shape &shape, const Mask *mask, ReduceOp op, std::optional<int> dim)
{
    const auto &gpu = backend();
    const auto geometry = reductionGeometry(shape, dim);
    const auto outputs = static_cast<std::size_t>(geometry.outer * geometry.inner);
    if (!mask && geometry.reduced == 0 && outputs > 0 && (op == ReduceOp::Amax || op == ReduceOp::Amin))
        throw InputError(std::string(op == ReduceOp::Amax ? "amax" : "amin") + " over zero elements has no value (shape "
                         + shapeToString(shape) + ")");
    std::vector<double> accumulators(outputs);
    std::vector<std::int64_t> counts(outputs);
    const GpuReduceJob<T> job{viewOf(program, numel(shape)),
                              mask ? mask->data() : nullptr,
                              static_cast<int>(op),
                              geometry.outer,
                              geometry.reduced,
                              geometry.inner,
                              accumulators.data(),
                              counts.data()};
    std::string error;
    if constexpr (std::is_same_v<T, float>)
        check(gpu.reduceProgramF32(job, &error), "reduction", error);
    else
        check(gpu.reduceProgramF64(job, &error), "reduction", error);
    MaskedValue<T> out;
    out.shape = geometry.resultShape;
    out.values.resize(outputs);
    Mask outMask(mask ? outputs : 0);
    for (std::size_t r = 0; r < outputs; ++r) {
        const bool specified = counts[r] > 0;
        out.values[r] = (mask && !specified) ? T(0) : static_cast<T>(finishedValue(op, accumulators[r], counts[r]));
        if (mask)
            outMask[r] = specified;
    }
    if (mask) {
        out.kind = ValueKind::Masked;
        out.mask = std::make_shared<const Mask>(std::move(outMask));
    }
    return out;
}

template void evaluateOnGpu<float>(const ElementwiseProgram<float> &, std::int64_t, float *);
template void evaluateOnGpu<double>(const ElementwiseProgram<double> &, std::int64_t, double *);
template MaskedValue<float>
reduceOnGpu<float>(const ElementwiseProgram<float> &, const Shape &, const Mask *, ReduceOp, std::optional<int>);
template MaskedValue<double>
reduceOnGpu<double>(const ElementwiseProgram<double> &, const Shape &, const Mask *, ReduceOp, std::optional<int>);

} // namespace sparsity::core
