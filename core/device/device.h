#pragma once
// Compute devices. The CPU always exists; CUDA exists when the build has the CUDA backend and
// a driver with at least one GPU is present. A missing device is a clear error, never a crash.
#include <string>
#include <string_view>

namespace sparsity::core {

enum class Device { Cpu, Cuda };
// What a request asks for: a device, or auto (see resolveDevice).
enum class DeviceChoice { Cpu, Cuda, Auto };

struct DeviceStatus {
    bool cudaCompiled = false;
    int cudaDevices = 0;
    std::string cudaDescription; // device name, or why CUDA is unavailable
};

const DeviceStatus &deviceStatus(); // probed once
bool cudaAvailable();
// The device a choice runs on. Throws InputError for cuda without a device. auto is the CPU:
// every command's CUDA path was measured slower than its CPU path, on an H200 with 16 cores
// too (docs/PERFORMANCE.md, "GPU"), since each moves its tensors across PCIe for work the
// CPU does at memory speed.
Device resolveDevice(DeviceChoice requested);
// Brings the device up before the work that is timed: for CUDA its context and a first
// allocation (a report gives this as device_init_seconds, apart from the compute). The
// ranks of sparsity-mpi that share a machine take its visible GPUs in turn: the node-local
// rank modulo their count. Returns the seconds it took: 0 for the CPU, and after the first
// call. Throws InputError when the context cannot be made (the device is busy or out of
// memory).
double initDevice(Device device);
std::string_view deviceName(Device device);
// A choice's name ("cpu", "cuda", "auto") and back: for front ends and BATCH.json (InputError
// naming `what` for another name).
std::string_view deviceChoiceName(DeviceChoice choice);
DeviceChoice parseDeviceChoice(std::string_view name, std::string_view what = "device");

} // namespace sparsity::core
