#pragma once
// How a subcommand runs on the ranks of sparsity-mpi (docs/SCALING.md). `sparsify`,
// `convert`, `eval` and `inspect` run on every rank, each working its own rows; `run` hands
// inputs to free ranks. The subcommands not yet divided (step, gradcheck) run on the root
// alone, with serial HDF5, while the other ranks wait: the same output and exit code as
// `sparsity`, without the speed-up. In `sparsity` both just run.
#include <functional>

namespace sparsity::cli {

// Runs `command` on the root alone; every rank then ends as the root did (its error, or
// CheckFailed, or success).
void onRootAlone(const std::function<void()> &command);

} // namespace sparsity::cli
