#pragma once
#include <CLI/App.hpp>

namespace sparsity::cli {

// sparsity inspect FILE.h5 [--json] [--count]
void addInspectCommand(CLI::App &app);

} // namespace sparsity::cli
