#include "app/cli/sparsify_command.h"

#include "app/cli/cli_output.h"
#include "core/pipeline/sparsify_file.h"
#include "core/sparsify/scheduler.h"
#include "core/sparsify/sparsifier_methods.h"
#include "core/sparsify/sparsifier_parameters.h"
#include "core/util/errors.h"

#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <type_traits>

namespace sparsity::cli {
namespace {

struct SparsifyOptions {
    core::SparsifyRequest request;
    std::string method;
    std::string layout = "dense";
    // The method parameters' flags given, in order (sparsifier_parameters.h).
    std::vector<std::pair<const core::SparsifierParameter *, core::ParameterValue>> parameters;
    std::optional<std::int64_t> atStep;
    std::string memoryLimit;
    std::optional<std::string> schedule;
    bool json = false;
};

void runSparsify(SparsifyOptions &o)
{
    auto &c = o.request.config;
    c.method = core::parseMethod(o.method);
    for (const auto &[parameter, value] : o.parameters) {
        // Another method's flag is a mistake to name, not one to ignore.
        core::requireParameterOf(c.method, *parameter, core::flagOf(*parameter));
        parameter->set(c, value);
    }
    if (o.schedule) {
        const double level = core::parseSchedule(*o.schedule)->level(o.atStep.value_or(0));
        if (!core::applyScheduleLevel(c, level))
            throw core::errors::mustBe("--schedule", "set a level of data-norm or row-norm",
                                       std::string(core::methodName(c.method)));
    }
    o.request.masked = o.layout == "masked";
    o.request.layout = o.request.masked ? core::Layout::Dense : *core::parseLayout(o.layout);
    const auto budget = applyMemoryLimit(o.memoryLimit);
    o.request.memoryLimit = budget;
    core::ValidationReport report;
    const auto results = core::sparsifyFile(o.request, report, terminalProgress("sparsify"));
    printNotes(report);
    if (o.json) {
        auto histogramJson = [](const std::optional<core::Histogram> &h) {
            return h ? nlohmann::ordered_json{{"lo", h->lo}, {"hi", h->hi}, {"counts", h->counts}}
                     : nlohmann::ordered_json(nullptr);
        };
        auto datasets = nlohmann::ordered_json::array();
        for (const auto &r : results)
            datasets.push_back({{"path", r.path},
                                {"shape", r.shape},
                                {"nnz_before", r.nnzBefore},
                                {"nnz_after", r.nnzAfter},
                                {"pruned", r.pruned},
                                {"sparsity", r.sparsity},
                                {"blocks_removed", r.blocksRemoved},
                                {"streamed", r.streamed},
                                {"stored_values_only", r.storedValuesOnly},
                                {"device", core::deviceName(r.device)},
                                {"histogram_before", histogramJson(r.histogramBefore)},
                                {"histogram_after", histogramJson(r.histogramAfter)},
                                {"compute_seconds", r.computeSeconds},
                                {"io_seconds", r.ioSeconds}});
        double compute = 0, io = 0, deviceInit = 0;
        for (const auto &r : results) {
            compute += r.computeSeconds;
            io += r.ioSeconds;
            deviceInit += r.deviceInitSeconds;
        }
        nlohmann::ordered_json json{{"output", o.request.output},
                                    {"method", o.method},
                                    {"layout", o.layout},
                                    {"datasets", datasets},
                                    {"compute_seconds", compute},
                                    {"io_seconds", io},
                                    {"device_init_seconds", deviceInit}};
        addMemoryReport(json, budget);
        std::cout << json.dump(2) << '\n';
        return;
    }
    for (const auto &r : results)
        std::cout << r.path << ": " << o.layout << ", nnz " << r.nnzBefore << " -> " << r.nnzAfter << ", " << std::fixed
                  << std::setprecision(1) << 100.0 * r.sparsity << "% pruned"
                  << (r.blocksRemoved ? ", " + std::to_string(r.blocksRemoved) + " blocks sparsified" : "")
                  << (r.streamed ? " (streamed)" : "") << (r.storedValuesOnly ? " (stored values only)" : "") << '\n';
}

// --KEY for the method parameter, parsed as its kind; a given value is kept for runSparsify.
void addParameterOption(CLI::App *c,
                        const core::SparsifierParameter &parameter,
                        std::vector<std::pair<const core::SparsifierParameter *, core::ParameterValue>> &given)
{
    const auto help = std::string(core::methodName(parameter.method)) + ": " + std::string(parameter.help);
    auto add = [&]<class T>(std::type_identity<T>) {
        c->add_option_function<T>(
            core::flagOf(parameter), [&parameter, &given](const T &value) { given.emplace_back(&parameter, value); }, help);
    };
    switch (parameter.kind) {
    case core::ParameterKind::Number:
        return add(std::type_identity<double>{});
    case core::ParameterKind::Integer:
        return add(std::type_identity<std::int64_t>{});
    case core::ParameterKind::Text:
        return add(std::type_identity<std::string>{});
    }
}

// "threshold, data-norm, n-m or row-norm": the names of the table's methods that `keep` keeps.
std::string methodList(bool (*keep)(const core::SparsifierMethodFacts &))
{
    std::vector<std::string_view> names;
    for (const auto &facts : core::kSparsifierMethods)
        if (keep(facts))
            names.push_back(facts.name);
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i)
        list += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
    return list;
}

} // namespace

void addSparsifyCommand(CLI::App &app)
{
    auto o = std::make_shared<SparsifyOptions>();
    auto *c = app.add_subcommand("sparsify", "Prune tensors with a data sparsifier and write them in a layout");
    c->add_option("IN", o->request.input, "Input HDF5 file")->required();
    c->add_option("-o,--output", o->request.output, "Output HDF5 file (written atomically)")->required();
    c->add_option("--method", o->method, methodList([](const auto &) { return true; }))->required();
    c->add_option("--dataset", o->request.datasets, "Element to sparsify (repeatable; default: all)");
    c->add_option("--layout", o->layout, "Output layout")->check(CLI::IsMember(layoutChoices(true)));
    for (const auto &parameter : core::sparsifierParameters())
        addParameterOption(c, parameter, o->parameters);
    c->add_option("--schedule", o->schedule, "cubic:S0,SF,T0,DT,N[,zero] | linear:S0,SF,T0,T1 | list:L0,L1,...");
    c->add_option("--at-step", o->atStep, "Step at which the schedule's level is taken");
    addMemoryLimitOption(c, o->memoryLimit);
    c->add_option("--gzip", o->request.writeOptions.gzipLevel, "gzip level 1-9")->check(CLI::Range(0, 9));
    addDeviceOption(c, o->request.device,
                    "cpu, cuda or auto (" + methodList([](const auto &facts) { return facts.cuda; }) + " on CUDA)");
    c->add_flag("--save-state", o->request.saveState, "Also write /sparsifier_state (data_sparsifier_state)");
    c->add_flag("--json", o->json, "Print a JSON report on stdout");
    c->callback([o] { runSparsify(*o); });
}

} // namespace sparsity::cli
