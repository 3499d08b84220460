#pragma once
// Turns a CUDA error into a message for GpuBackend's `error` out-parameter.
#include <cuda_runtime.h>
#include <string>

namespace sparsity::core::cuda {

inline bool failed(cudaError_t status, const char *what, std::string *error)
{
    if (status == cudaSuccess)
        return false;
    if (error)
        *error = std::string(what) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
    cudaGetLastError(); // clear the sticky error for later calls
    return true;
}

} // namespace sparsity::core::cuda
