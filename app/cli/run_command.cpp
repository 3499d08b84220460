#include "app/cli/run_command.h"

#include "app/cli/cli_output.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/batch_run.h"

#include <CLI/CLI.hpp>
#include <algorithm>
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

// What an input's run prints: its error line first, its notes after it (they belong to it),
// then its line or its part of the --json report.
struct InputOutcome {
    std::int64_t index = 0;
    bool ok = false;
    std::string errorLine, notes, doneLine;
    nlohmann::ordered_json report;
};

InputOutcome outcomeOf(std::int64_t index, const core::BatchInputReport &r)
{
    InputOutcome o{index,
                   r.ok,
                   r.ok ? "" : "error: " + r.error + "\n",
                   notesText(r.notes),
                   r.ok ? r.job.input + " -> " + r.job.output + "\n" : "",
                   reportJson(r)};
    return o;
}

void print(const InputOutcome &o, bool json)
{
    std::cerr << o.errorLine << o.notes;
    if (!json)
        std::cout << o.doneLine;
}

// Every rank's outcomes, on the root, in input order (ranks took inputs as they were free).
std::vector<InputOutcome> gatherOutcomes(const std::vector<InputOutcome> &mine)
{
    auto list = nlohmann::json::array();
    for (const auto &o : mine)
        list.push_back({{"index", o.index},
                        {"ok", o.ok},
                        {"error", o.errorLine},
                        {"notes", o.notes},
                        {"done", o.doneLine},
                        {"report", o.report.dump()}});
    std::vector<InputOutcome> all;
    for (const auto &text : core::ranks().gatherToRoot(list.dump()))
        for (const auto &o : nlohmann::json::parse(text))
            all.push_back({o["index"].get<std::int64_t>(), o["ok"].get<bool>(), o["error"].get<std::string>(),
                           o["notes"].get<std::string>(), o["done"].get<std::string>(),
                           nlohmann::ordered_json::parse(o["report"].get<std::string>())});
    std::sort(all.begin(), all.end(), [](const auto &a, const auto &b) { return a.index < b.index; });
    return all;
}

void runBatch(const RunOptions &o)
{
    const auto &group = core::ranks();
    // Every rank reads the recipe; a bad one is refused once, before any input runs.
    core::BatchRecipe recipe;
    std::vector<core::BatchJob> jobs;
    std::int64_t budget = 0;
    core::agreeOn(group, [&] {
        recipe = core::parseBatch(o.batch);
        if (o.memoryLimitOption->count() > 0) {
            recipe.memoryLimit = core::parseMemoryLimit(o.memoryLimit, "--memory-limit");
            if (recipe.sparsify)
                recipe.sparsify->memoryLimit = recipe.memoryLimit;
        }
        budget = applyMemoryLimit(recipe.memoryLimit ? std::to_string(*recipe.memoryLimit) : "auto");
        jobs = core::planBatch(recipe);
    });
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
    // In one process inputs run one after another, each kernel using every core: HDF5 serialises
    // its calls (one lock in the serial build; the OpenMPI build is not thread-safe), so two
    // inputs would wait on each other's reads and writes instead of overlapping them. Across
    // ranks each input goes to whichever rank is free next and is done by that rank alone.
    const bool terminal = ::isatty(STDERR_FILENO) && group.isSolo();
    const auto count = static_cast<std::int64_t>(jobs.size());
    std::vector<InputOutcome> mine;
    for (auto i = group.nextTask(); i < count; i = group.nextTask()) {
        const auto &job = jobs[static_cast<std::size_t>(i)];
        if (terminal)
            std::fprintf(stderr, "[%lld/%zu] %s\n", static_cast<long long>(i + 1), jobs.size(), job.input.c_str());
        const core::SoloRanksScope alone;
        mine.push_back(outcomeOf(i, core::runBatchJob(recipe, job)));
        if (group.isSolo())
            print(mine.back(), o.json);
    }
    group.waitIdle();
    const auto outcomes = group.isSolo() ? mine : gatherOutcomes(mine);
    auto reports = nlohmann::ordered_json::array();
    std::int64_t failed = 0;
    for (const auto &outcome : outcomes) {
        if (!group.isSolo())
            print(outcome, o.json);
        failed += outcome.ok ? 0 : 1;
        reports.push_back(outcome.report);
    }
    if (group.isRoot()) {
        if (o.json) {
            nlohmann::ordered_json json{{"batch", o.batch}, {"inputs", reports}, {"failed", failed}};
            addMemoryReport(json, budget);
            std::cout << json.dump(2) << '\n';
        } else
            std::cout << count - failed << " of " << jobs.size() << " inputs done\n";
    }
    if (group.sum(failed) > 0)
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
    c->callback([o] { runBatch(*o); });
}

} // namespace sparsity::cli
