#pragma once
#include "core/device/gpu_backend.h"

namespace sparsity::core::cuda {

template <class T>
bool optimizerSteps(const GpuStepJob<T> &job, std::string *error);

} // namespace sparsity::core::cuda
