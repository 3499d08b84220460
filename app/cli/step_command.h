#pragma once
#include <CLI/App.hpp>

namespace sparsity::cli {

// sparsity step IN.h5 -o OUT.h5 --optimizer ... --semantics ... (docs/CLI.md, "step")
void addStepCommand(CLI::App &app);

} // namespace sparsity::cli
