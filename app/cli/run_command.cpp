#include "app/cli/run_command.h"

#include "app/cli/cli_output.h"
#include "app/cli/rank_dispatch.h"
#include "core/pipeline/batch_run.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace sparsity::cli {
namespace {

struct RunOptions {
    std::string batch;
    std::string memoryLimit;
    CLI::Option *memoryLimitOption = nullptr; // given: overrides the recipe's memory_limit
    bool dryRun = false;
    bool json = false;
};

nlohmann::ordered_json reportJson(const core::BatchInputReport &r)
{
    nlohmann::ordered_json json{{"input", r.job.input}, {"output", r.job.output}, {"ok", r.ok}};
    if (!r.ok)
        json["error"] = r.error;
    if (!r.sparsified.empty()) {
        auto datasets = nlohmann::ordered_json::array();
        for (const auto &e : r.sparsified)
            datasets.push_back({{"path", e.path},
                                {"shape", e.shape},
                                {"nnz_before", e.nnzBefore},
                                {"nnz_after", e.nnzAfter},
                                {"sparsity", e.sparsity}});
        json["sparsify"] = datasets;
    }
    if (r.step)
        json["step"] = {{"steps", r.step->stepsRun}, {"step", r.step->finalStep}, {"rows_written", r.step->rowsWritten}};
    double compute = 0.0, io = 0.0;
    for (const auto &e : r.sparsified) {
        compute += e.computeSeconds;
        io += e.ioSeconds;
    }
    if (r.step) {
        compute += r.step->computeSeconds;
        io += r.step->ioSeconds;
    }
    json["compute_seconds"] = compute;
    json["io_seconds"] = io;
    json["seconds"] = r.seconds;
    return json;
}

void runBatch(const RunOptions &o)
{
    auto recipe = core::parseBatch(o.batch);
    if (o.memoryLimitOption->count() > 0) {
        recipe.memoryLimit = core::parseMemoryLimit(o.memoryLimit);
        if (recipe.sparsify)
            recipe.sparsify->memoryLimit = recipe.memoryLimit;
    }
    const auto budget = applyMemoryLimit(recipe.memoryLimit ? std::to_string(*recipe.memoryLimit) : "auto");
    const auto jobs = core::planBatch(recipe);
    if (o.dryRun) {
        if (o.json) {
            auto list = nlohmann::ordered_json::array();
            for (const auto &job : jobs)
                list.push_back({{"input", job.input}, {"output", job.output}});
            std::cout << nlohmann::ordered_json{{"batch", o.batch}, {"dry_run", true}, {"jobs", list}}.dump(2) << '\n';
        } else {
            for (const auto &job : jobs)
                std::cout << job.input << " -> " << job.output << '\n';
        }
        return;
    }
    // Inputs run one after another, each kernel using every core: Debian's HDF5 is built
    // without thread safety, so two inputs cannot be read or written at once in one process.
    const bool terminal = ::isatty(STDERR_FILENO);
    auto reports = nlohmann::ordered_json::array();
    std::size_t failed = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        if (terminal)
            std::fprintf(stderr, "[%zu/%zu] %s\n", i + 1, jobs.size(), jobs[i].input.c_str());
        const auto r = core::runBatchJob(recipe, jobs[i]);
        // An input's error line comes first, its notes after it: they belong to it.
        if (!r.ok) {
            ++failed;
            std::cerr << "error: " << r.error << '\n';
        }
        printNotes(r.notes);
        if (r.ok && !o.json)
            std::cout << r.job.input << " -> " << r.job.output << '\n';
        reports.push_back(reportJson(r));
    }
    if (o.json) {
        nlohmann::ordered_json json{{"batch", o.batch}, {"inputs", reports}, {"failed", failed}};
        addMemoryReport(json, budget);
        std::cout << json.dump(2) << '\n';
    } else
        std::cout << jobs.size() - failed << " of " << jobs.size() << " inputs done\n";
    if (failed > 0)
        throw CheckFailed{};
}

} // namespace

void addRunCommand(CLI::App &app)
{
    auto o = std::make_shared<RunOptions>();
    auto *c = app.add_subcommand("run", "Replay a batch recipe (BATCH.json) over many input files");
    c->add_option("BATCH", o->batch, "Batch file (BATCH.json, see docs/CLI.md)")->required();
    o->memoryLimitOption = addMemoryLimitOption(c, o->memoryLimit);
    c->add_flag("--dry-run", o->dryRun, "Check the batch file and list inputs and outputs; open and write nothing");
    c->add_flag("--json", o->json, "Print a JSON report on stdout");
    c->callback([o] { onRootAlone([&] { runBatch(*o); }); });
}

} // namespace sparsity::cli
