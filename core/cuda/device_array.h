#pragma once
// DeviceArray<P>: one cudaMalloc'ed array, freed on scope exit, with the copies the kernels'
// host wrappers need. allocate() keeps the block when it is already large enough, so an
// array reused across steps is allocated once. Failures are reported through `error`
// (cuda_check.h).
#include "core/cuda/cuda_check.h"

#include <algorithm>
#include <cstddef>

namespace sparsity::core::cuda {

template <class P>
struct DeviceArray {
    P *ptr = nullptr;
    std::size_t size = 0;

    DeviceArray() = default;
    DeviceArray(const DeviceArray &) = delete;
    DeviceArray &operator=(const DeviceArray &) = delete;
    ~DeviceArray() { cudaFree(ptr); }

    bool allocate(std::size_t count, std::string *error)
    {
        if (ptr && count <= size)
            return true;
        cudaFree(ptr);
        ptr = nullptr;
        size = count;
        return !failed(cudaMalloc(&ptr, std::max<std::size_t>(count, 1) * sizeof(P)), "cudaMalloc", error);
    }
    bool upload(const P *host, std::size_t count, std::string *error)
    {
        return allocate(count, error)
               && !failed(cudaMemcpy(ptr, host, count * sizeof(P), cudaMemcpyHostToDevice), "cudaMemcpy", error);
    }
    bool download(P *host, std::size_t count, std::string *error) const
    {
        return !failed(cudaMemcpy(host, ptr, count * sizeof(P), cudaMemcpyDeviceToHost), "cudaMemcpy", error);
    }
};

} // namespace sparsity::core::cuda
