// Fills the GPU dispatch table with the CUDA kernels and the device probe.
#include "core/cuda/cuda_check.h"
#include "core/cuda/dense_to_csr.h"
#include "core/cuda/optimizer_steps.h"
#include "core/cuda/program_kernels.h"
#include "core/cuda/sparsify_kernels.h"
#include "core/device/gpu_backend.h"

namespace sparsity::core {
namespace {

GpuProbe probeCuda()
{
    GpuProbe probe;
    int count = 0;
    std::string error;
    // Without a driver this returns cudaErrorInsufficientDriver (35); it does not crash.
    if (cuda::failed(cudaGetDeviceCount(&count), "no usable CUDA driver", &error)) {
        probe.description = error;
        return probe;
    }
    if (count == 0) {
        probe.description = "no CUDA device present";
        return probe;
    }
    cudaDeviceProp properties{};
    cudaGetDeviceProperties(&properties, 0);
    probe.deviceCount = count;
    probe.description = std::string(properties.name) + " (sm_" + std::to_string(properties.major)
                        + std::to_string(properties.minor) + ", " + std::to_string(properties.totalGlobalMem >> 30) + " GiB)";
    return probe;
}

bool initContext(std::string *error)
{
    void *first = nullptr;
    return !cuda::failed(cudaFree(nullptr), "creating the CUDA context", error)
           && !cuda::failed(cudaMalloc(&first, 1 << 20), "cudaMalloc", error)
           && !cuda::failed(cudaFree(first), "cudaFree", error);
}

} // namespace

const GpuBackend &cudaBackend()
{
    static const GpuBackend backend{probeCuda,
                                    initContext,
                                    cuda::denseToCsr<float>,
                                    cuda::denseToCsr<double>,
                                    cuda::optimizerSteps<float>,
                                    cuda::optimizerSteps<double>,
                                    cuda::thresholdSquash,
                                    cuda::nmMask,
                                    cuda::blockScores,
                                    cuda::evaluateProgram<float>,
                                    cuda::evaluateProgram<double>,
                                    cuda::reduceProgram<float>,
                                    cuda::reduceProgram<double>};
    return backend;
}

} // namespace sparsity::core
