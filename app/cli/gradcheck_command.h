#pragma once
#include <CLI/App.hpp>

namespace sparsity::cli {

// sparsity gradcheck --expr E --input NAME=FILE.h5:PATH ... [--masked] [--eps] [--atol] [--rtol]
// [--fast] [--json] (docs/CLI.md, "gradcheck"). Exit 0 pass, 1 mismatch, 2 bad input.
void addGradcheckCommand(CLI::App &app);

} // namespace sparsity::cli
