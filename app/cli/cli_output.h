#pragma once
// Shared terminal output of the CLI: notes, progress (only when stderr is a terminal).
#include "core/util/progress.h"
#include "core/util/validation_report.h"

#include <string>

namespace sparsity::cli {

// Thrown after a report is printed when a check failed (gradcheck) or some inputs failed
// (run): exit 1, no further error line.
struct CheckFailed {};

void printNotes(const core::ValidationReport &report);
// A progress printer labelled `what`, or an empty callback when stderr is not a terminal.
core::ProgressCallback terminalProgress(std::string what);

} // namespace sparsity::cli
