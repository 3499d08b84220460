#include "app/cli/cli_output.h"

#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace sparsity::cli {

void printNotes(const core::ValidationReport &report)
{
    for (const auto &finding : report.findings()) {
        std::cerr << (finding.severity == core::Severity::Warning ? "warning: " : "note: ") << finding.location << ": ";
        if (!finding.invariant.empty())
            std::cerr << finding.invariant << ": ";
        std::cerr << finding.detail << '\n';
    }
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

} // namespace sparsity::cli
