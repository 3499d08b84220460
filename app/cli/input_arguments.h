#pragma once
// `--input NAME=FILE.h5:PATH` of eval and gradcheck: the command line's spelling of an input
// binding, turned into core's typed binding at the door (core checks the name, the file and
// the path; it parses no text).
#include "core/pipeline/input_bindings.h"

#include <string>
#include <vector>

namespace sparsity::cli {

// "x=data.h5:/weights" -> {x, data.h5, /weights}; the file may hold ':' (the last one splits).
// InputError naming the argument when there is no '=' before a ':'.
core::InputBinding parseInputArgument(const std::string &argument);
std::vector<core::InputBinding> parseInputArguments(const std::vector<std::string> &arguments);

} // namespace sparsity::cli
