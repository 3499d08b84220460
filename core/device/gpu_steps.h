#pragma once
// Optimizer steps on the CUDA device: the same validation, patterns and formulas as the CPU
// path (runSteps), with parameter and state uploaded once per run.
#include "core/optim/optimizer_step.h"

namespace sparsity::core {

// Throws InputError when no CUDA device is available, InternalError on a CUDA failure.
template <class T>
void runStepsOnGpu(DenseTensor<T> &param,
                   OptimizerState<T> &state,
                   const OptimizerOptions &options,
                   std::span<const NamedGradient> gradients,
                   const Tensor *mask);

} // namespace sparsity::core
