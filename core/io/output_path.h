#pragma once
// What makes a path unusable as an output file name, checked before anything is written: an
// output path is taken exactly as given or refused, never cut. A NUL would end the name early
// in every C call below us; a path or a name longer than Linux allows fails deep inside the
// standard library or HDF5 with a message that names nothing.
#include <optional>
#include <string>

namespace sparsity::core {

// Linux limits (PATH_MAX counts the terminating NUL; NAME_MAX does not).
constexpr std::size_t kMaxPathBytes = 4095;
constexpr std::size_t kMaxNameBytes = 255;

// The violated condition ("must not contain a NUL character, but has one at byte 3") or
// nullopt when `path` can name a file.
std::optional<std::string> outputPathProblem(const std::string &path);

} // namespace sparsity::core
