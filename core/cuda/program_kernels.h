#pragma once
#include "core/device/gpu_backend.h"

namespace sparsity::core::cuda {

template <class T>
bool evaluateProgram(const GpuProgramView<T> &program, T *out, std::string *error);
template <class T>
bool reduceProgram(const GpuReduceJob<T> &job, std::string *error);

} // namespace sparsity::core::cuda
