#pragma once
// The memory budget of a command: how many bytes of tensor data it may hold at once. Every
// subcommand takes one (`--memory-limit SIZE`, BATCH.json `memory_limit`); the default, auto,
// is a share of the memory available to the process, computed here and nowhere else:
//
//   available = min(MemAvailable of /proc/meminfo,
//                   the memory limit of the process's cgroup: v2 memory.max, v1 memory.limit_in_bytes)
//   auto      = available / 2  (the rest is left to HDF5, the page cache and other programs)
//
// Streaming commands size their blocks from the budget; commands that work on whole tensors
// refuse an array larger than it with an error, rather than being killed by the OOM killer.
#include <cstdint>
#include <optional>
#include <string>

namespace sparsity::core {

struct AvailableMemory {
    std::int64_t bytes = 0;
    std::string source; // what bounds it, e.g. "cgroup v2 memory.max" or "MemAvailable"
};

// The memory this process may still use, from /proc/meminfo and its cgroup (v1 or v2).
AvailableMemory availableMemory();

// The auto budget: half of availableMemory() (at least 16 MiB).
std::int64_t autoMemoryBudget();

// One line for --help: "auto = half of the memory available (MemAvailable, cgroup v1/v2 limits): 5.7 GiB here".
std::string autoMemoryBudgetDescription();

// "512M", "2G", "64K", "1000": bytes. InputError naming `option` for anything else.
std::int64_t parseMemorySize(const std::string &text, const std::string &option);
// As parseMemorySize, and "auto" (nullopt: the caller takes autoMemoryBudget()).
std::optional<std::int64_t> parseMemoryLimit(const std::string &text, const std::string &option);
// A limit given (per process) or auto: the budget in bytes. Auto is divided among the ranks of
// ranks() that share this machine.
std::int64_t resolveMemoryLimit(const std::optional<std::int64_t> &limit);

// The budget that whole-tensor reads (h5_reader) are checked against; unset (the library's
// default) checks nothing. The CLI sets it once per command, the desktop app at start (auto).
void setWholeTensorBudget(std::optional<std::int64_t> bytes);
std::optional<std::int64_t> wholeTensorBudget();
// Throws InputError "<where>: <what> needs N bytes in memory, more than the memory limit of M bytes"
// when `bytes` exceeds the whole-tensor budget.
void requireWithinBudget(std::int64_t bytes, const std::string &where, const std::string &what);

// The peak resident memory of this process so far (VmHWM; getrusage as a fallback), bytes.
std::int64_t peakResidentBytes();

// count * elementSize, saturated at INT64_MAX: a file may declare 2^62 elements, whose bytes
// do not fit 64 bits (a budget comparison must not overflow).
std::int64_t bytesFor(std::int64_t count, std::size_t elementSize);
// a + b of two such sizes (not negative), saturated at INT64_MAX.
std::int64_t saturatedSum(std::int64_t a, std::int64_t b);

// "1.5 GiB", "64 KiB", "12 B".
std::string formatBytes(double bytes); // in double: a declared size may not fit 64 bits

} // namespace sparsity::core
