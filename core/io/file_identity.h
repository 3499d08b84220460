#pragma once
#include <string>

namespace sparsity::core {

// True when both paths name the same file (hard links and symlinks included), or, when the
// second does not exist yet, the same location after normalisation.
bool isSameFile(const std::string &a, const std::string &b);

// Throws InputError (exit 2) "output X is the same file as input Y" when they are.
void refuseOverwritingInput(const std::string &output, const std::string &input);

} // namespace sparsity::core
