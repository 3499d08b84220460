#pragma once
// DeviceArray<P>: one cudaMalloc'ed array, freed on scope exit, with the copies the kernels'
// host wrappers need. Every call reports failure through `error` (cuda_check.h).
#include "core/cuda/cuda_check.h"

#include <algorithm>
#include <cstdint>

namespace sparsity::core::cuda {

template <class P>
struct DeviceArray {
    P *ptr = nullptr;

    DeviceArray() = default;
    DeviceArray(const DeviceArray &) = delete;
    DeviceArray &operator=(const DeviceArray &) = delete;
    ~DeviceArray() { cudaFree(ptr); }

    bool allocate(std::int64_t count, std::string *error)
    {
        return !failed(cudaMalloc(&ptr, std::max<std::int64_t>(count, 1) * sizeof(P)), "cudaMalloc", error);
    }
    bool upload(const P *host, std::int64_t count, std::string *error)
    {
        return allocate(count, error)
               && !failed(cudaMemcpy(ptr, host, count * sizeof(P), cudaMemcpyHostToDevice), "cudaMemcpy", error);
    }
    bool download(P *host, std::int64_t count, std::string *error) const
    {
        return !failed(cudaMemcpy(host, ptr, count * sizeof(P), cudaMemcpyDeviceToHost), "cudaMemcpy", error);
    }
};

} // namespace sparsity::core::cuda
