#include "core/util/memory_bound.h"

#include "core/util/errors.h"
#include "core/util/memory_budget.h"

#include <cstdio>
#include <filesystem>
#include <sys/statvfs.h>
#include <unistd.h>

namespace sparsity::core {

std::uint64_t physicalMemoryBytes()
{
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0)
        return std::uint64_t{1} << 40; // unknown: let the allocator decide below 1 TiB
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize);
}

void requireAllocatable(std::int64_t count, std::size_t elementSize, const std::string &where, const std::string &what)
{
    // In double: count * elementSize may not fit 64 bits.
    const double bytes = static_cast<double>(count) * static_cast<double>(elementSize);
    const auto memory = physicalMemoryBytes();
    if (bytes <= static_cast<double>(memory))
        return;
    throw IoError(where + ": " + what + " " + std::to_string(count) + " elements; holding them takes " + formatBytes(bytes)
                  + ", more than this machine's memory (" + formatBytes(static_cast<double>(memory)) + ")");
}

bool fitsFreeSpaceOf(const std::string &outputPath, std::int64_t bytes)
{
    const auto parent = std::filesystem::path(outputPath).parent_path();
    struct statvfs fs {};
    if (::statvfs(parent.empty() ? "." : parent.c_str(), &fs) != 0)
        return true; // unknown: the write itself will say
    const double free = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
    return static_cast<double>(bytes) <= free;
}

} // namespace sparsity::core
