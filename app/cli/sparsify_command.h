#pragma once
#include <CLI/App.hpp>

namespace sparsity::cli {

// sparsity sparsify IN.h5 -o OUT.h5 --method ... (docs/CLI.md, "sparsify")
void addSparsifyCommand(CLI::App &app);

} // namespace sparsity::cli
