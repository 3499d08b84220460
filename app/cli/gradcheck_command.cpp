#include "app/cli/gradcheck_command.h"

#include "app/cli/cli_output.h"
#include "app/cli/input_arguments.h"
#include "app/cli/json_matrix_text.h"
#include "app/cli/rank_dispatch.h"
#include "core/pipeline/gradcheck_file.h"

#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace sparsity::cli {
namespace {

struct GradcheckOptions {
    core::GradcheckRequest request;
    std::vector<std::string> inputs; // NAME=FILE.h5:PATH
    std::string memoryLimit;         // gradcheck works on whole tensors: an input over it is refused
    bool json = false;
};

void printMatrix(const char *title, const core::Buffer<double> &values, std::int64_t rows, std::int64_t cols)
{
    std::cout << "  " << title << ":\n";
    for (std::int64_t r = 0; r < rows; ++r) {
        std::cout << "   ";
        for (std::int64_t c = 0; c < cols; ++c)
            std::cout << ' ' << std::setw(10) << std::setprecision(4) << values[static_cast<std::size_t>(r * cols + c)];
        std::cout << '\n';
    }
}

void runGradcheck(GradcheckOptions &o)
{
    o.request.inputs = parseInputArguments(o.inputs);
    const auto budget = applyMemoryLimit(o.memoryLimit);
    core::ValidationReport report;
    const auto r = core::gradcheckFile(o.request, report);
    printNotes(report);
    const auto &check = r.check;
    const auto &options = check.options;
    if (o.json) {
        JsonMatrixText matrices;
        auto inputs = nlohmann::ordered_json::array();
        for (const auto &j : check.inputs)
            inputs.push_back({{"name", j.name},
                              {"shape", j.shape},
                              {"numerical", matrices.matrix(j.numerical, j.rows, j.cols)},
                              {"analytical", matrices.matrix(j.analytical, j.rows, j.cols)},
                              {"max_abs_diff", j.maxAbsDiff},
                              {"mismatches", j.mismatches},
                              {"uses", j.uses},
                              {"explanations", j.explanations}});
        nlohmann::ordered_json json{{"passed", check.passed},
                                    {"masked", options.masked},
                                    {"fast", options.fast},
                                    {"eps", options.eps},
                                    {"atol", options.atol},
                                    {"rtol", options.rtol},
                                    {"output_shape", check.outputShape},
                                    {"inputs", inputs},
                                    {"compute_seconds", r.computeSeconds},
                                    {"io_seconds", r.ioSeconds}};
        addMemoryReport(json, budget);
        matrices.write(std::cout, json);
        std::cout << '\n';
    } else {
        std::cout << "gradcheck " << o.request.expression << ": " << (check.passed ? "passed" : "FAILED") << " ("
                  << (options.masked ? "masked" : "non-masked") << (options.fast ? ", fast" : "") << ", eps " << options.eps
                  << ", atol " << options.atol << ", rtol " << options.rtol << ")\n";
        for (const auto &j : check.inputs) {
            std::cout << j.name << ' ' << core::shapeToString(j.shape) << ": Jacobian " << j.rows << " x " << j.cols
                      << ", max |diff| " << j.maxAbsDiff << ", " << j.mismatches.size() << " mismatching entries\n";
            for (const auto &use : j.uses)
                std::cout << "  use: " << use << '\n';
            for (const auto &line : j.explanations)
                std::cout << "  " << line << '\n';
            if (j.rows * j.cols <= 64) {
                printMatrix("numerical", j.numerical, j.rows, j.cols);
                printMatrix("analytical", j.analytical, j.rows, j.cols);
            }
        }
    }
    if (!check.passed)
        throw CheckFailed{};
}

} // namespace

void addGradcheckCommand(CLI::App &app)
{
    auto o = std::make_shared<GradcheckOptions>();
    auto &options = o->request.options;
    auto *c = app.add_subcommand("gradcheck", "Compare numerical and analytical Jacobians of an expression (float64)");
    c->add_option("--expr", o->request.expression, "Expression, e.g. 'mm(sparse_mm(x, x), x)'")->required();
    c->add_option("--input", o->inputs, "Input NAME=FILE.h5:PATH (repeatable; bool datasets are masks)");
    c->add_flag("--masked", options.masked, "Masked semantics: perturb only specified elements");
    c->add_option("--eps", options.eps, "Central-difference step (default 1e-6)");
    c->add_option("--atol", options.atol, "Absolute tolerance (default 1e-5)");
    c->add_option("--rtol", options.rtol, "Relative tolerance (default 1e-3)");
    c->add_flag("--fast", options.fast, "Compare one random projection per input instead of whole Jacobians");
    addMemoryLimitOption(c, o->memoryLimit);
    c->add_flag("--json", o->json, "Print a JSON report on stdout");
    c->callback([o] { onRootAlone([&] { runGradcheck(*o); }); });
}

} // namespace sparsity::cli
