#include "core/util/memory_budget.h"

#include "core/parallel/rank_group.h"
#include "core/util/errors.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <sys/resource.h>
#include <vector>

namespace sparsity::core {
namespace {

constexpr std::int64_t kUnlimited = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMinimumAutoBudget = std::int64_t{16} << 20;

// The first number in a file such as memory.max; nullopt for "max", a missing file or junk.
std::optional<std::int64_t> readLimitFile(const std::string &path)
{
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max")
        return std::nullopt;
    try {
        std::size_t used = 0;
        const auto value = std::stoull(text, &used);
        // cgroup v1 writes "unlimited" as a page-rounded INT64_MAX.
        if (used != text.size() || value >= (std::uint64_t{1} << 62))
            return std::nullopt;
        return static_cast<std::int64_t>(value);
    } catch (const std::logic_error &) {
        return std::nullopt;
    }
}

// The smallest `file` limit along `cgroupPath` and its ancestors under `mount`, and the
// mount's own file (a container sees its cgroup as the mount's root).
std::optional<std::int64_t> cgroupLimit(const std::string &mount, std::string cgroupPath, const std::string &file)
{
    std::optional<std::int64_t> best;
    auto consider = [&](const std::string &folder) {
        if (const auto limit = readLimitFile(folder + "/" + file))
            best = std::min(best.value_or(kUnlimited), *limit);
    };
    while (!cgroupPath.empty() && cgroupPath != "/") {
        consider(mount + cgroupPath);
        cgroupPath.erase(cgroupPath.find_last_of('/'));
    }
    consider(mount);
    return best;
}

std::optional<std::int64_t> memAvailable()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::int64_t kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:")
            return kib * 1024;
    return std::nullopt;
}

std::atomic<std::int64_t> g_wholeTensorBudget{0}; // 0: unset

} // namespace

AvailableMemory availableMemory()
{
    AvailableMemory result{kUnlimited, "no limit found"};
    auto consider = [&](std::optional<std::int64_t> bytes, const char *source) {
        if (bytes && *bytes < result.bytes)
            result = {*bytes, source};
    };
    consider(memAvailable(), "MemAvailable");
    std::ifstream cgroups("/proc/self/cgroup");
    for (std::string line; std::getline(cgroups, line);) {
        // hierarchy-id:controllers:path; v2 is "0::path", v1's memory controller lists "memory".
        const auto first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos)
            continue;
        const auto controllers = line.substr(first + 1, second - first - 1);
        const auto path = line.substr(second + 1);
        if (line.compare(0, first, "0") == 0 && controllers.empty()) {
            consider(cgroupLimit("/sys/fs/cgroup", path, "memory.max"), "cgroup v2 memory.max");
            consider(cgroupLimit("/sys/fs/cgroup/unified", path, "memory.max"), "cgroup v2 memory.max");
        }
        std::stringstream list(controllers);
        for (std::string c; std::getline(list, c, ',');)
            if (c == "memory")
                consider(cgroupLimit("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes"), "cgroup v1 memory.limit_in_bytes");
    }
    return result;
}

namespace {
std::int64_t autoBudgetOf(const AvailableMemory &available) { return std::max(kMinimumAutoBudget, available.bytes / 2); }
} // namespace

std::int64_t autoMemoryBudget() { return autoBudgetOf(availableMemory()); }

std::string autoMemoryBudgetDescription()
{
    // One reading of /proc/meminfo and the cgroup files for both figures: they agree.
    const auto available = availableMemory();
    return "auto = half of the memory available to the process (the least of MemAvailable and its cgroup v1/v2 "
           "limit; here "
           + available.source + "): " + formatBytes(static_cast<double>(autoBudgetOf(available)));
}

std::int64_t parseMemorySize(const std::string &text, const std::string &option)
{
    std::size_t used = 0;
    double value = -1;
    try {
        value = std::stod(text, &used);
    } catch (const std::logic_error &) {
    }
    const std::string suffix = text.substr(used);
    double factor = 0;
    if (suffix.empty() || suffix == "B")
        factor = 1;
    else if (suffix == "K" || suffix == "KB" || suffix == "KiB")
        factor = 1024.0;
    else if (suffix == "M" || suffix == "MB" || suffix == "MiB")
        factor = 1024.0 * 1024;
    else if (suffix == "G" || suffix == "GB" || suffix == "GiB")
        factor = 1024.0 * 1024 * 1024;
    else if (suffix == "T" || suffix == "TB" || suffix == "TiB")
        factor = 1024.0 * 1024 * 1024 * 1024;
    const double bytes = value * factor;
    if (!(value > 0) || factor == 0 || !std::isfinite(bytes) || bytes >= 9.2e18 || bytes < 1)
        throw errors::mustBe(option, "be a positive size such as 512M or 2G, or auto", "'" + text + "'");
    return static_cast<std::int64_t>(bytes);
}

std::optional<std::int64_t> parseMemoryLimit(const std::string &text, const std::string &option)
{
    if (text == "auto")
        return std::nullopt;
    return parseMemorySize(text, option);
}

std::int64_t resolveMemoryLimit(const std::optional<std::int64_t> &limit)
{
    // Ranks on one machine share its memory.
    return limit ? *limit : autoMemoryBudget() / ranks().ranksOnThisNode();
}

void setWholeTensorBudget(std::optional<std::int64_t> bytes) { g_wholeTensorBudget = bytes.value_or(0); }

std::optional<std::int64_t> wholeTensorBudget()
{
    const auto bytes = g_wholeTensorBudget.load();
    return bytes > 0 ? std::optional<std::int64_t>(bytes) : std::nullopt;
}

void requireWithinBudget(std::int64_t bytes, const std::string &where, const std::string &what)
{
    const auto budget = wholeTensorBudget();
    if (budget && bytes > *budget)
        throw InputError(where + ": " + what + " needs " + formatBytes(static_cast<double>(bytes))
                         + " in memory, more than the memory limit of " + formatBytes(static_cast<double>(*budget)) + " ("
                         + std::to_string(*budget) + " bytes); raise the memory limit");
}

std::int64_t peakResidentBytes()
{
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stoll(line.substr(6)) * 1024;
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::int64_t>(usage.ru_maxrss) * 1024;
}

std::int64_t bytesFor(std::int64_t count, std::size_t elementSize)
{
    const auto size = static_cast<std::int64_t>(elementSize);
    if (count <= 0 || size <= 0)
        return 0;
    return count > std::numeric_limits<std::int64_t>::max() / size ? std::numeric_limits<std::int64_t>::max() : count * size;
}

std::int64_t saturatedSum(std::int64_t a, std::int64_t b)
{
    return a > std::numeric_limits<std::int64_t>::max() - b ? std::numeric_limits<std::int64_t>::max() : a + b;
}

std::string formatBytes(double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB"};
    int unit = 0;
    while (bytes >= 1024.0 && unit < 7) {
        bytes /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
    return text;
}

} // namespace sparsity::core
