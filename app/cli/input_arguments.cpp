#include "app/cli/input_arguments.h"

#include "core/util/errors.h"

namespace sparsity::cli {

core::InputBinding parseInputArgument(const std::string &argument)
{
    const auto equals = argument.find('=');
    const auto colon = argument.rfind(':');
    if (equals == std::string::npos || colon == std::string::npos || colon < equals)
        throw core::errors::mustBe("--input '" + argument + "'", "have the form NAME=FILE.h5:PATH", "no '=' or ':'");
    return {argument.substr(0, equals), argument.substr(equals + 1, colon - equals - 1), argument.substr(colon + 1)};
}

std::vector<core::InputBinding> parseInputArguments(const std::vector<std::string> &arguments)
{
    std::vector<core::InputBinding> bindings;
    bindings.reserve(arguments.size());
    for (const auto &argument : arguments)
        bindings.push_back(parseInputArgument(argument));
    return bindings;
}

} // namespace sparsity::cli
