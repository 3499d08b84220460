#pragma once
#include <CLI/App.hpp>

namespace sparsity::cli {

// sparsity eval --expr E --input NAME=FILE.h5:PATH ... -o OUT.h5 [--json] (docs/CLI.md, "eval")
void addEvalCommand(CLI::App &app);

} // namespace sparsity::cli
