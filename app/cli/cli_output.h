#pragma once
// Shared terminal output of the CLI: notes, progress (only when stderr is a terminal).
#include "core/device/device.h"
#include "core/util/progress.h"
#include "core/util/validation_report.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sparsity::cli {

// Thrown after a report is printed when a check failed (gradcheck) or some inputs failed
// (run): exit 1, no further error line.
struct CheckFailed {};

// "note: <location>: ..." and "warning: ..." lines, one per finding.
std::string notesText(const core::ValidationReport &report);
void printNotes(const core::ValidationReport &report);
// A progress printer labelled `what`, or an empty callback when stderr is not a terminal.
core::ProgressCallback terminalProgress(std::string what);

// --device cpu|cuda|auto on `command`, parsed into `choice` (core's names; another is exit 2).
CLI::Option *addDeviceOption(CLI::App *command, core::DeviceChoice &choice, const std::string &help);
// The storage layouts' names (core/tensor/layout.h), and "masked" too where `withMasked`: the
// choices of a --layout option.
std::vector<std::string> layoutChoices(bool withMasked);
// --memory-limit SIZE|auto on `command` (every subcommand has one); `text` starts as "auto".
CLI::Option *addMemoryLimitOption(CLI::App *command, std::string &text);
// The budget `text` names, in bytes (auto: core/util/memory_budget.h); whole-tensor reads
// are checked against it from now on.
std::int64_t applyMemoryLimit(const std::string &text);
// "memory_limit_bytes" and "peak_memory_bytes" (resident, so far) in a --json report.
void addMemoryReport(nlohmann::ordered_json &json, std::int64_t budget);

} // namespace sparsity::cli
