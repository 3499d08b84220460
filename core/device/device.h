#pragma once
// Compute devices. The CPU always exists; CUDA exists when the build has the CUDA backend and
// a driver with at least one GPU is present. A missing device is a clear error, never a crash.
#include <string>
#include <string_view>

namespace sparsity::core {

enum class Device { Cpu, Cuda };

struct DeviceStatus {
    bool cudaCompiled = false;
    int cudaDevices = 0;
    std::string cudaDescription; // device name, or why CUDA is unavailable
};

const DeviceStatus &deviceStatus(); // probed once
bool cudaAvailable();
// "cpu", "cuda" or "auto" (CUDA when present). Throws InputError for "cuda" without a device.
Device resolveDevice(std::string_view requested);
std::string_view deviceName(Device device);

} // namespace sparsity::core
