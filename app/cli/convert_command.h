#pragma once
#include <CLI/App.hpp>

namespace sparsity::cli {

// sparsity convert IN.h5 OUT.h5 --layout L [--dataset PATH]... [--gzip N] [--index-width W] [--json]
void addConvertCommand(CLI::App &app);

} // namespace sparsity::cli
