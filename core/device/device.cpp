#include "core/device/device.h"

#include "core/device/gpu_backend.h"
#include "core/parallel/rank_group.h"
#include "core/util/choices.h"
#include "core/util/elapsed.h"
#include "core/util/errors.h"

#include <algorithm>
#include <mutex>

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
    case DeviceChoice::Auto:
        return Device::Cpu;
    case DeviceChoice::Cuda:
        break;
    }
    if (!cudaAvailable())
        throw errors::mustBe("device cuda", "name an available CUDA device", "none: " + deviceStatus().cudaDescription);
    return Device::Cuda;
}

double initDevice(Device device)
{
    if (device == Device::Cpu)
        return 0.0;
    resolveDevice(DeviceChoice::Cuda); // the "no device" error
    static std::mutex guard;
    static bool ready = false;
    const std::lock_guard lock(guard);
    if (ready)
        return 0.0;
    const auto start = Clock::now();
    std::string error;
    // Ranks sharing a machine take its GPUs in turn (with one GPU visible to each, as Slurm's
    // --gpus-per-task gives, each takes its own).
    const int ordinal = ranks().rankOnThisNode() % std::max(1, deviceStatus().cudaDevices);
    if (!gpuBackend()->initContext(ordinal, &error))
        throw errors::mustBe("device cuda", "be able to make a CUDA context", error);
    ready = true;
    return secondsSince(start);
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
