#pragma once
// Compute devices. The CPU always exists; CUDA exists when the build has the CUDA backend and
// a driver with at least one GPU is present. A missing device is a clear error, never a crash.
#include <string>
#include <string_view>

namespace sparsity::core {

enum class Device { Cpu, Cuda };
// What a request asks for: a device, or auto (CUDA when present).
enum class DeviceChoice { Cpu, Cuda, Auto };

struct DeviceStatus {
    bool cudaCompiled = false;
    int cudaDevices = 0;
    std::string cudaDescription; // device name, or why CUDA is unavailable
};

const DeviceStatus &deviceStatus(); // probed once
bool cudaAvailable();
// The device a choice runs on. Throws InputError for cuda without a device.
Device resolveDevice(DeviceChoice requested);
std::string_view deviceName(Device device);
// A choice's name ("cpu", "cuda", "auto") and back: for front ends and BATCH.json (InputError
// naming `what` for another name).
std::string_view deviceChoiceName(DeviceChoice choice);
DeviceChoice parseDeviceChoice(std::string_view name, std::string_view what = "device");

} // namespace sparsity::core
