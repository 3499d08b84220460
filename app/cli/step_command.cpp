#include "app/cli/step_command.h"

#include "app/cli/cli_output.h"
#include "app/cli/rank_dispatch.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/step_file.h"
#include "core/util/errors.h"

#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace sparsity::cli {
namespace {

struct StepOptions {
    core::StepRequest request;
    std::string optimizer, semantics, rule = "torch";
    std::vector<std::string> compare;
    std::optional<std::string> param;
    std::optional<std::string> mask;
    std::optional<std::string> stateFrom;
    std::string memoryLimit;
    bool json = false;
};

nlohmann::ordered_json divergenceJson(const std::vector<core::SemanticsDivergence> &divergence, core::Semantics semantics)
{
    auto out = nlohmann::ordered_json::array();
    for (const auto &d : divergence) {
        auto tensors = nlohmann::ordered_json::array();
        for (const auto &t : d.tensors)
            tensors.push_back({{"name", t.name}, {"max_abs_diff", t.maxAbsDiff}, {"differing_rows", t.differingRows}});
        out.push_back({{"semantics", {core::semanticsName(semantics), core::semanticsName(d.against)}}, {"tensors", tensors}});
    }
    return out;
}

// The request the options describe (parsing is repeatable: a second call gives the same).
core::StepRequest &parseRequest(StepOptions &o)
{
    auto &r = o.request;
    r.kind = core::parseOptimizer(o.optimizer);
    r.semantics = core::parseSemantics(o.semantics);
    r.rule = core::parseRule(o.rule);
    r.param = o.param;
    r.mask = o.mask;
    r.stateFrom = o.stateFrom;
    r.compareWith.clear();
    for (const auto &name : o.compare)
        r.compareWith.push_back(core::parseSemantics(name));
    return r;
}

void runStep(StepOptions &o)
{
    auto &r = parseRequest(o);
    const auto budget = applyMemoryLimit(o.memoryLimit);
    r.memoryLimit = budget;
    core::ValidationReport report;
    const auto result = core::stepFile(r, report, terminalProgress("step"));
    printNotes(report);
    if (o.json) {
        nlohmann::ordered_json json{{"output", r.output},
                                    {"optimizer", core::optimizerName(r.kind)},
                                    {"semantics", core::semanticsName(r.semantics)},
                                    {"rule", core::ruleName(r.rule)},
                                    {"device", core::deviceName(result.device)},
                                    {"shape", result.paramShape},
                                    {"dtype", core::dtypeName(result.dtype)},
                                    {"steps", result.stepsRun},
                                    {"step", result.finalStep},
                                    {"rows_written", result.rowsWritten},
                                    {"streamed", result.streamed},
                                    {"compute_seconds", result.computeSeconds},
                                    {"io_seconds", result.ioSeconds},
                                    {"device_init_seconds", result.deviceInitSeconds}};
        if (!result.divergence.empty())
            json["divergence"] = divergenceJson(result.divergence, r.semantics);
        addMemoryReport(json, budget);
        std::cout << json.dump(2) << '\n';
        return;
    }
    std::cout << r.output << ": " << core::optimizerName(r.kind) << " (" << core::semanticsName(r.semantics) << ", "
              << core::ruleName(r.rule) << "), " << result.stepsRun << " step" << (result.stepsRun == 1 ? "" : "s") << " to step "
              << result.finalStep << ", " << result.rowsWritten << " rows written\n";
    for (const auto &d : result.divergence) {
        std::cout << "divergence " << core::semanticsName(r.semantics) << " vs " << core::semanticsName(d.against) << ":\n";
        for (const auto &t : d.tensors)
            std::cout << "  " << std::left << std::setw(16) << t.name << " max |diff| " << std::setw(12) << t.maxAbsDiff
                      << " rows differing " << t.differingRows << '\n';
    }
}

} // namespace

void addStepCommand(CLI::App &app)
{
    auto o = std::make_shared<StepOptions>();
    auto &hp = o->request.hyperparameters;
    auto *c = app.add_subcommand("step", "Run optimizer steps under dense, lazy or masked semantics");
    c->add_option("IN", o->request.input, "HDF5 file with the parameter, gradients and mask")->required();
    c->add_option("-o,--output", o->request.output, "Output HDF5 file (/param, /state/<name>, /last_update)")->required();
    c->add_option("--optimizer", o->optimizer, "sgd, adam or adagrad")->required();
    c->add_option("--semantics", o->semantics, "dense, lazy or masked")->required();
    c->add_option("--rule", o->rule, "torch (PyTorch 1.13, default) or mxnet (MXNet 1.9.1)");
    addDeviceOption(c, o->request.device, "cpu, cuda or auto");
    c->add_option("--param", o->param, "Parameter dataset in IN");
    c->add_option("--grad", o->request.grads, "Gradient element in IN; one step per --grad, in order")->required();
    c->add_option("--mask", o->mask, "Bool mask dataset in IN (masked semantics)");
    c->add_option("--state-from", o->stateFrom, "Resume from a file that `sparsity step` wrote");
    c->add_option("--compare", o->compare, "Also run these semantics on the same inputs and report the divergence");
    c->add_option("--lr", hp.lr, "Learning rate");
    c->add_option("--eps", hp.eps, "Epsilon");
    c->add_option("--weight-decay", hp.weightDecay, "Weight decay");
    c->add_option("--momentum", hp.momentum, "Momentum (sgd)");
    c->add_option("--beta1", hp.beta1, "Adam beta1");
    c->add_option("--beta2", hp.beta2, "Adam beta2");
    c->add_option("--lr-decay", hp.lrDecay, "Adagrad learning-rate decay (torch)");
    c->add_option("--initial-accumulator-value", hp.initialAccumulatorValue, "Adagrad initial sum (torch)");
    c->add_option("--clip-gradient", hp.clipGradient, "Clip gradients to [-X, X] (mxnet; negative: off)");
    c->add_option("--rescale-grad", hp.rescaleGrad, "Gradient rescale factor (mxnet)");
    c->add_option("--dampening", hp.dampening, "SGD dampening (torch)");
    c->add_flag("--nesterov", hp.nesterov, "Nesterov momentum (sgd, torch)");
    addMemoryLimitOption(c, o->memoryLimit);
    c->add_flag("--json", o->json, "Print a JSON report on stdout");
    // A parameter stepped by rows is divided among the ranks; a whole one is stepped by the root.
    // One process has nothing to divide, and stepFile makes its own plan: no plan here.
    c->callback([o] {
        if (core::ranks().isSolo()) {
            runStep(*o);
            return;
        }
        bool byRows = false;
        try {
            byRows = core::stepsByRows(parseRequest(*o));
        } catch (const core::Error &) {
            // refused below, by the root
        }
        if (core::ranks().onEveryRank(byRows))
            runStep(*o);
        else
            onRootAlone([&] { runStep(*o); });
    });
}

} // namespace sparsity::cli
