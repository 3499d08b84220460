#pragma once
// A whole range of a file read or written at an offset (pread, pwrite), from any thread:
// retried where a call is interrupted or moves fewer bytes, until the range is done or a call
// fails. Each returns what went wrong (errno's text, or `endedEarly` / `nothingWritten` for a
// call that moved no byte), nothing when the range is done, so that the caller names its file,
// element or folder in its own words.
#include <cstdint>
#include <optional>
#include <string>

namespace sparsity::core {

std::optional<std::string> readAtOffset(int fd, std::int64_t offset, void *into, std::int64_t bytes, const char *endedEarly);
std::optional<std::string>
writeAtOffset(int fd, std::int64_t offset, const void *from, std::int64_t bytes, const char *nothingWritten);

} // namespace sparsity::core
