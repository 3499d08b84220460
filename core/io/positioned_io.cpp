#include "core/io/positioned_io.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace sparsity::core {

std::optional<std::string> readAtOffset(int fd, std::int64_t offset, void *into, std::int64_t bytes, const char *endedEarly)
{
    auto *out = static_cast<char *>(into);
    while (bytes > 0) {
        const auto got = ::pread(fd, out, static_cast<std::size_t>(bytes), static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? std::string(std::strerror(errno)) : std::string(endedEarly);
        out += got;
        offset += got;
        bytes -= got;
    }
    return std::nullopt;
}

std::optional<std::string>
writeAtOffset(int fd, std::int64_t offset, const void *from, std::int64_t bytes, const char *nothingWritten)
{
    const auto *in = static_cast<const char *>(from);
    while (bytes > 0) {
        const auto put = ::pwrite(fd, in, static_cast<std::size_t>(bytes), static_cast<off_t>(offset));
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return put < 0 ? std::string(std::strerror(errno)) : std::string(nothingWritten);
        in += put;
        offset += put;
        bytes -= put;
    }
    return std::nullopt;
}

} // namespace sparsity::core
