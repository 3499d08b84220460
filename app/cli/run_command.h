#pragma once
#include <CLI/App.hpp>

namespace sparsity::cli {

// sparsity run BATCH.json [--dry-run] [--json] (docs/CLI.md, "run"). Exit 0 all inputs done, 1 an input
// failed (the others still ran), 2 the batch file is invalid.
void addRunCommand(CLI::App &app);

} // namespace sparsity::cli
