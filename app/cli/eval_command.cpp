#include "app/cli/eval_command.h"

#include "app/cli/cli_output.h"
#include "app/cli/input_arguments.h"
#include "core/pipeline/eval_file.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace sparsity::cli {
namespace {

struct EvalOptions {
    core::EvalRequest request;
    std::vector<std::string> inputs; // NAME=FILE.h5:PATH
    std::string maskPolicy = "strict";
    std::string memoryLimit;
    bool json = false;
    bool print = false;
};

std::string resultKind(const core::EvalReport &report) { return std::string(core::valueKindName(report.kind)); }

void runEval(EvalOptions &o)
{
    o.request.inputs = parseInputArguments(o.inputs);
    o.request.policy = o.maskPolicy == "intersect" ? core::MaskPolicy::Intersect : core::MaskPolicy::Strict;
    const auto budget = applyMemoryLimit(o.memoryLimit);
    o.request.memoryLimit = budget;
    o.request.keepResult = o.print;
    core::ValidationReport report;
    const auto r = core::evalFile(o.request, report);
    printNotes(report);
    const auto &shape = r.shape;
    const auto dtype = r.dtype;
    if (o.json) {
        auto inputs = nlohmann::ordered_json::array();
        for (const auto &input : r.inputs)
            inputs.push_back({{"name", input.binding.name},
                              {"file", input.binding.file},
                              {"path", input.binding.path},
                              {"shape", input.shape},
                              {"layout", core::layoutName(input.layout)},
                              {"dtype", core::dtypeName(input.dtype)},
                              {"masked", input.masked},
                              {"nnz", input.specified}});
        nlohmann::ordered_json json{{"output", o.request.output},
                                    {"expression", o.request.expression},
                                    {"inputs", inputs},
                                    {"result",
                                     {{"path", "/result"},
                                      {"shape", shape},
                                      {"layout", core::layoutName(r.layout)},
                                      {"kind", resultKind(r)},
                                      {"dtype", core::dtypeName(dtype)},
                                      {"nnz", r.specified},
                                      {"stored", r.stored},
                                      {"streamed", r.streamed}}},
                                    {"device", core::deviceName(r.device)},
                                    {"compute_seconds", r.computeSeconds},
                                    {"io_seconds", r.ioSeconds},
                                    {"device_init_seconds", r.deviceInitSeconds}};
        if (o.print)
            json["text"] = core::formatValue(r.result);
        addMemoryReport(json, budget);
        std::cout << json.dump(2) << '\n';
        return;
    }
    std::cout << o.request.output << ":/result " << core::shapeToString(shape) << ' ' << resultKind(r) << ' '
              << core::layoutName(r.layout) << ", " << r.specified << " specified\n";
    if (o.print)
        std::cout << core::formatValue(r.result) << '\n';
}

} // namespace

void addEvalCommand(CLI::App &app)
{
    auto o = std::make_shared<EvalOptions>();
    auto *c = app.add_subcommand("eval", "Evaluate an expression over masked, sparse and dense tensors");
    c->add_option("--expr", o->request.expression, "Expression, e.g. 'sum(sqrt(abs(x)) * x + 1.5, 1)'")->required();
    c->add_option("--input", o->inputs, "Input NAME=FILE.h5:PATH (repeatable)");
    c->add_option("-o,--output", o->request.output, "Output HDF5 file (/result)")->required();
    c->add_option("--mask-policy", o->maskPolicy, "strict (masks of binary operands must match) or intersect")
        ->check(CLI::IsMember({"strict", "intersect"}));
    addDeviceOption(c, o->request.device, "cpu, cuda or auto (elementwise work and reductions)");
    c->add_flag("--print", o->print, "Print the result as torch.masked does (-- for unspecified)");
    addMemoryLimitOption(c, o->memoryLimit);
    c->add_flag("--json", o->json, "Print a JSON report on stdout");
    c->callback([o] { runEval(*o); });
}

} // namespace sparsity::cli
