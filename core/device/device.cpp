#include "core/device/device.h"

#include "core/device/gpu_backend.h"
#include "core/util/choices.h"
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

Device resolveDevice(DeviceChoice requested)
{
    switch (requested) {
    case DeviceChoice::Cpu:
        return Device::Cpu;
    case DeviceChoice::Auto:
        return cudaAvailable() ? Device::Cuda : Device::Cpu;
    case DeviceChoice::Cuda:
        break;
    }
    if (!cudaAvailable())
        throw errors::mustBe("device cuda", "name an available CUDA device", "none: " + deviceStatus().cudaDescription);
    return Device::Cuda;
}

std::string_view deviceName(Device device) { return device == Device::Cpu ? "cpu" : "cuda"; }

namespace {
constexpr std::pair<std::string_view, DeviceChoice> kDeviceChoices[] = {
    {"cpu", DeviceChoice::Cpu}, {"cuda", DeviceChoice::Cuda}, {"auto", DeviceChoice::Auto}};
} // namespace

std::string_view deviceChoiceName(DeviceChoice choice)
{
    for (const auto &[name, value] : kDeviceChoices)
        if (value == choice)
            return name;
    return "?";
}

DeviceChoice parseDeviceChoice(std::string_view name, std::string_view what)
{
    return parseChoice(
        what, name, kDeviceChoices, [](const auto &c) { return c.first; }, [](const auto &c) { return c.second; });
}

} // namespace sparsity::core
