#include "core/device/gpu_steps.h"

#include "core/device/device.h"
#include "core/device/gpu_backend.h"
#include "core/util/errors.h"

namespace sparsity::core {

template <class T>
void runStepsOnGpu(DenseTensor<T> &param,
                   OptimizerState<T> &state,
                   const OptimizerOptions &options,
                   std::span<const NamedGradient> gradients,
                   const Tensor *mask)
{
    resolveDevice(DeviceChoice::Cuda);
    validateStepInputs(param.shape, options, gradients, mask);
    // Patterns are built (and checked finite) on the host first: a bad gradient stops the
    // run before anything is uploaded.
    std::vector<UpdatePattern<T>> patterns;
    std::vector<GpuPatternView<T>> views;
    const bool torchSparseSgd = widensToTorchSparseSgd(options);
    auto bufferRows = torchSparseSgd ? rowsHeldByBuffer(state.lastUpdate) : std::vector<char>{};
    for (std::size_t k = 0; k < gradients.size(); ++k) {
        auto pattern = checkedPattern<T>(gradients[k], options, mask, state.step + 1 + static_cast<std::int64_t>(k));
        if (torchSparseSgd)
            pattern = torchSparseSgdPattern(std::move(pattern), bufferRows);
        patterns.push_back(std::move(pattern));
    }
    for (const auto &p : patterns) {
        GpuPatternView<T> view;
        view.kind = static_cast<int>(p.kind);
        view.rowWidth = p.rowWidth;
        const auto &indices = p.kind == UpdatePattern<T>::Kind::Rows ? p.rows : p.elements;
        view.indices = indices.data();
        view.indexCount = p.kind == UpdatePattern<T>::Kind::All ? 0 : static_cast<std::int64_t>(indices.size());
        view.values = p.values.data();
        view.valueCount = static_cast<std::int64_t>(p.values.size());
        views.push_back(view);
    }
    const auto pointers = statePointers(param, state);
    GpuStepJob<T> job{options,
                      pointers.param,
                      pointers.state0,
                      pointers.state1,
                      param.numel(),
                      state.lastUpdate.data(),
                      static_cast<std::int64_t>(state.lastUpdate.size()),
                      &state.step,
                      views.data(),
                      static_cast<std::int64_t>(views.size())};
    std::string error;
    bool ok = false;
    if constexpr (std::is_same_v<T, float>)
        ok = gpuBackend()->optimizerStepsF32(job, &error);
    else
        ok = gpuBackend()->optimizerStepsF64(job, &error);
    if (!ok)
        throw InternalError("optimizer steps on CUDA failed: " + error);
}

template void runStepsOnGpu<float>(
    DenseTensor<float> &, OptimizerState<float> &, const OptimizerOptions &, std::span<const NamedGradient>, const Tensor *);
template void runStepsOnGpu<double>(
    DenseTensor<double> &, OptimizerState<double> &, const OptimizerOptions &, std::span<const NamedGradient>, const Tensor *);

} // namespace sparsity::core
