#pragma once
// A previous `step` output read back to resume from it (--state-from): /param, /state/<name>
// for every state the optimizer keeps, /state/step and /last_update (docs/CLI.md, "step").
// The checks are made on the file's description before any values are read, so the whole
// and the streamed step refuse the same files with the same messages.
#include "core/io/h5_handle.h"
#include "core/optim/optimizer_state.h"

namespace sparsity::core {

// /state/step, checked to hold one integer >= 0.
std::int64_t readPreviousStep(const H5File &previous);

// Every /state/<name> the optimizer of `options` keeps exists with the parameter's shape, and
// /last_update has one entry per parameter row.
void requirePreviousStates(const H5File &previous, const OptimizerOptions &options, const Shape &paramShape);

// The whole state: the buffers, the step count and /last_update.
template <class T>
OptimizerState<T> readPreviousState(const H5File &previous, const OptimizerOptions &options, const Shape &paramShape);

} // namespace sparsity::core
