#include "core/io/file_identity.h"

#include "core/util/errors.h"

#include <filesystem>

namespace sparsity::core {

bool isSameFile(const std::string &a, const std::string &b)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(a, ec) && fs::exists(b, ec))
        return fs::equivalent(a, b, ec);
    return fs::weakly_canonical(a, ec) == fs::weakly_canonical(b, ec);
}

void refuseOverwritingInput(const std::string &output, const std::string &input)
{
    if (isSameFile(output, input))
        throw InputError("output " + output + " must differ from input " + input
                         + ", but it is the same file (inputs are never modified)");
}

} // namespace sparsity::core
