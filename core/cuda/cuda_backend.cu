// Fills the GPU dispatch table with the CUDA kernels and the device probe.
#include "core/cuda/cuda_check.h"
#include "core/cuda/dense_to_csr.h"
#include "core/cuda/optimizer_steps.h"
#include "core/cuda/program_kernels.h"
#include "core/cuda/sparsify_kernels.h"
#include "core/device/gpu_backend.h"

#include <atomic>
#include <string>

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

// The device initContext chose. The current device is a property of each host thread, and
// kernels may be called from threads other than the one that made the context (the desktop
// app's jobs, a pipeline's threads), so each call through the table selects it first.
std::atomic<int> g_ordinal{0};

template <auto Kernel>
struct OnChosenDevice;

template <class R, class... A, R (*Kernel)(A...)>
struct OnChosenDevice<Kernel> {
    static R call(A... args)
    {
        (void)cudaSetDevice(g_ordinal.load()); // a failure here is the kernel's first CUDA error
        return Kernel(args...);
    }
};

bool initContext(int ordinal, std::string *error)
{
    g_ordinal = ordinal;
    const auto selecting = "selecting CUDA device " + std::to_string(ordinal);
    void *first = nullptr;
    return !cuda::failed(cudaSetDevice(ordinal), selecting.c_str(), error)
           && !cuda::failed(cudaFree(nullptr), "creating the CUDA context", error)
           && !cuda::failed(cudaMalloc(&first, 1 << 20), "cudaMalloc", error)
           && !cuda::failed(cudaFree(first), "cudaFree", error);
}

} // namespace

const GpuBackend &cudaBackend()
{
    static const GpuBackend backend{probeCuda,
                                    initContext,
                                    OnChosenDevice<cuda::denseToCsr<float>>::call,
                                    OnChosenDevice<cuda::denseToCsr<double>>::call,
                                    OnChosenDevice<cuda::optimizerSteps<float>>::call,
                                    OnChosenDevice<cuda::optimizerSteps<double>>::call,
                                    OnChosenDevice<cuda::thresholdSquash>::call,
                                    OnChosenDevice<cuda::nmMask>::call,
                                    OnChosenDevice<cuda::blockScores>::call,
                                    OnChosenDevice<cuda::evaluateProgram<float>>::call,
                                    OnChosenDevice<cuda::evaluateProgram<double>>::call,
                                    OnChosenDevice<cuda::reduceProgram<float>>::call,
                                    OnChosenDevice<cuda::reduceProgram<double>>::call};
    return backend;
}

} // namespace sparsity::core
