#include "core/device/device.h"

#include "core/device/gpu_backend.h"
#include "core/util/errors.h"

namespace sparsity::core {

#ifdef SPARSITY_HAVE_CUDA
const GpuBackend &cudaBackend(); // defined in core/cuda
const GpuBackend *gpuBackend() { return &cudaBackend(); }
#else
const GpuBackend *gpuBackend() { return nullptr; }
#endif

const DeviceStatus &deviceStatus()
{
    static const DeviceStatus status = [] {
        DeviceStatus s;
        const auto *backend = gpuBackend();
        s.cudaCompiled = backend != nullptr;
        if (!backend) {
            s.cudaDescription = "not compiled in (CPU-only build)";
            return s;
        }
        const auto probe = backend->probe();
        s.cudaDevices = probe.deviceCount;
        s.cudaDescription = probe.description;
        return s;
    }();
    return status;
}

bool cudaAvailable() { return deviceStatus().cudaDevices > 0; }

Device resolveDevice(std::string_view requested)
{
    if (requested == "cpu")
        return Device::Cpu;
    if (requested == "auto")
        return cudaAvailable() ? Device::Cuda : Device::Cpu;
    if (requested == "cuda") {
        if (!cudaAvailable())
            throw errors::mustBe("device cuda", "name an available CUDA device", "none: " + deviceStatus().cudaDescription);
        return Device::Cuda;
    }
    throw errors::mustBe("device", "be one of cpu, cuda, auto", std::string(requested));
}

std::string_view deviceName(Device device) { return device == Device::Cpu ? "cpu" : "cuda"; }

} // namespace sparsity::core
