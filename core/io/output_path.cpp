#include "core/io/output_path.h"

#include <filesystem>

namespace sparsity::core {

std::optional<std::string> outputPathProblem(const std::string &path)
{
    if (const auto nul = path.find('\0'); nul != std::string::npos)
        return "must not contain a NUL character, but has one at byte " + std::to_string(nul);
    if (path.empty())
        return std::string("must not be empty, but it is");
    if (path.size() > kMaxPathBytes)
        return "must be at most " + std::to_string(kMaxPathBytes) + " bytes long (PATH_MAX), but has "
               + std::to_string(path.size());
    for (const auto &part : std::filesystem::path(path))
        if (part.native().size() > kMaxNameBytes)
            return "must have names of at most " + std::to_string(kMaxNameBytes) + " bytes (NAME_MAX), but '"
                   + part.native().substr(0, 16) + "...' has " + std::to_string(part.native().size());
    return std::nullopt;
}

} // namespace sparsity::core
