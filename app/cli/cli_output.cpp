#include "app/cli/cli_output.h"

#include "core/parallel/rank_group.h"
#include "core/tensor/layout.h"
#include "core/util/memory_budget.h"

#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace sparsity::cli {

std::vector<std::string> layoutChoices(bool withMasked)
{
    std::vector<std::string> names;
    for (const auto &info : core::allLayouts()) {
        names.emplace_back(info.name);
        if (withMasked && info.layout == core::Layout::Dense)
            names.emplace_back("masked"); // a masked_tensor of dense data
    }
    return names;
}

std::string notesText(const core::ValidationReport &report)
{
    std::string text;
    for (const auto &finding : report.findings()) {
        text += (finding.severity == core::Severity::Warning ? "warning: " : "note: ") + finding.location + ": ";
        if (!finding.invariant.empty())
            text += finding.invariant + ": ";
        text += finding.detail + '\n';
    }
    return text;
}

void printNotes(const core::ValidationReport &report)
{
    if (core::ranks().isRoot()) // every rank read the same input and found the same notes
        std::cerr << notesText(report);
}

core::ProgressCallback terminalProgress(std::string what)
{
    if (!::isatty(STDERR_FILENO))
        return {};
    return [what = std::move(what)](std::int64_t done, std::int64_t total) {
        std::fprintf(stderr, "\r%s %lld/%lld", what.c_str(), static_cast<long long>(done), static_cast<long long>(total));
        if (done == total)
            std::fputc('\n', stderr);
        std::fflush(stderr);
        return true;
    };
}

CLI::Option *addDeviceOption(CLI::App *command, core::DeviceChoice &choice, const std::string &help)
{
    return command->add_option_function<std::string>(
        "--device", [&choice](const std::string &name) { choice = core::parseDeviceChoice(name, "--device"); }, help);
}

CLI::Option *addMemoryLimitOption(CLI::App *command, std::string &text)
{
    static const std::string help =
        "Memory budget for tensor data: SIZE (64K, 512M, 2G) or auto (default; " + core::autoMemoryBudgetDescription() + ")";
    text = "auto";
    return command->add_option("--memory-limit", text, help);
}

std::int64_t applyMemoryLimit(const std::string &text)
{
    const auto budget = core::resolveMemoryLimit(core::parseMemoryLimit(text, "--memory-limit"));
    core::setWholeTensorBudget(budget);
    return budget;
}

void addMemoryReport(nlohmann::ordered_json &json, std::int64_t budget)
{
    json["memory_limit_bytes"] = budget;
    json["peak_memory_bytes"] = core::peakResidentBytes();
}

} // namespace sparsity::cli
