#include "core/util/memory_bound.h"

#include "core/util/errors.h"
#include "core/util/memory_budget.h"

#include <cstdio>
#include <filesystem>
#include <optional>
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

namespace {

std::string outputDirectory(const std::string &outputPath)
{
    const auto parent = std::filesystem::path(outputPath).parent_path();
    return parent.empty() ? "." : parent.string();
}

// The bytes free to this user on the file system of `outputPath`'s directory; nullopt when
// unknown (the write itself will say).
std::optional<double> freeSpaceOf(const std::string &outputPath)
{
    struct statvfs fs {};
    if (::statvfs(outputDirectory(outputPath).c_str(), &fs) != 0)
        return std::nullopt;
    return static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
}

} // namespace

bool fitsFreeSpaceOf(const std::string &outputPath, std::int64_t bytes)
{
    const auto free = freeSpaceOf(outputPath);
    return !free || static_cast<double>(bytes) <= *free;
}

void requireFreeSpace(const std::string &outputPath, std::int64_t bytes, const std::string &where, const std::string &what)
{
    const auto free = freeSpaceOf(outputPath);
    if (!free || static_cast<double>(bytes) <= *free)
        return;
    throw IoError(where + ": " + what + " " + formatBytes(static_cast<double>(bytes)) + ", more than the " + formatBytes(*free)
                  + " free on the output's file system (" + outputDirectory(outputPath)
                  + "); free space there or write the output elsewhere");
}

void requireRoomToStream(const std::string &outputPath, std::int64_t bytes, const std::string &where)
{
    if (static_cast<double>(bytes) <= static_cast<double>(physicalMemoryBytes()))
        requireFreeSpace(outputPath, bytes, where, "streaming it writes up to");
}

} // namespace sparsity::core
