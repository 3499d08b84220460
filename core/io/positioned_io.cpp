#include "core/io/positioned_io.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace sparsity::core {
namespace {

// `bytes` bytes at `offset` through `call` (pread or pwrite) on `buffer`: interrupted calls made
// again, short ones continued; what failed, or `noProgress` where a call moved nothing.
template <class Call, class Byte>
std::optional<std::string>
wholeRange(Call call, int fd, std::int64_t offset, Byte *buffer, std::int64_t bytes, const char *noProgress)
{
    while (bytes > 0) {
        const auto moved = call(fd, buffer, static_cast<std::size_t>(bytes), static_cast<off_t>(offset));
        if (moved < 0 && errno == EINTR)
            continue;
        if (moved <= 0)
            return moved < 0 ? std::string(std::strerror(errno)) : std::string(noProgress);
        buffer += moved;
        offset += moved;
        bytes -= moved;
    }
    return std::nullopt;
}

} // namespace

std::optional<std::string> readAtOffset(int fd, std::int64_t offset, void *into, std::int64_t bytes, const char *endedEarly)
{
    return wholeRange(::pread, fd, offset, static_cast<char *>(into), bytes, endedEarly);
}

std::optional<std::string>
writeAtOffset(int fd, std::int64_t offset, const void *from, std::int64_t bytes, const char *nothingWritten)
{
    return wholeRange(::pwrite, fd, offset, static_cast<const char *>(from), bytes, nothingWritten);
}

} // namespace sparsity::core
