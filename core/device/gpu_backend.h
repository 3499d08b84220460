#pragma once
// The GPU dispatch table (ATen's stub pattern). Core code calls kernels through it; the
// optional sparsity_cuda target provides the CUDA implementation. This header is plain C++17
// so .cu files can include it.
#include <cstdint>
#include <string>

namespace sparsity::core {

struct GpuProbe {
    int deviceCount = 0;
    std::string description;   // "NVIDIA H100 (sm_90, 79 GiB)" or why there is none
};

struct GpuBackend {
    GpuProbe (*probe)();
    // Dense row-major [rows x cols] -> CSR. indptr has rows+1 entries; indices/values are
    // allocated by the callee with new[] (nnz entries). Returns false and sets `error` on
    // a CUDA failure.
    bool (*denseToCsrF32)(const float *dense, std::int64_t rows, std::int64_t cols, std::int64_t *indptr,
                          std::int64_t **indices, float **values, std::string *error);
    bool (*denseToCsrF64)(const double *dense, std::int64_t rows, std::int64_t cols, std::int64_t *indptr,
                          std::int64_t **indices, double **values, std::string *error);
};

// nullptr when the build has no CUDA backend.
const GpuBackend *gpuBackend();

} // namespace sparsity::core
