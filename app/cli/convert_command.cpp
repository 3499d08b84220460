#include "app/cli/convert_command.h"

#include "app/cli/cli_output.h"
#include "core/pipeline/convert_file.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

namespace sparsity::cli {
namespace {

struct ConvertOptions {
    core::ConvertRequest request;
    std::string layout;
    std::string indexWidth = "auto";
    std::string memoryLimit;
    bool json = false;
};

void runConvert(ConvertOptions &options)
{
    options.request.layout = *core::parseLayout(options.layout); // CLI11 checked the spelling
    static const std::map<std::string, core::IndexWidth> widths{
        {"auto", core::IndexWidth::Auto}, {"int32", core::IndexWidth::Int32}, {"int64", core::IndexWidth::Int64}};
    options.request.writeOptions.indexWidth = widths.at(options.indexWidth);
    const auto budget = applyMemoryLimit(options.memoryLimit);
    options.request.memoryLimit = budget;
    core::ValidationReport report;
    const auto converted = core::convertFile(options.request, report, terminalProgress("converting"));
    printNotes(report);
    if (options.json) {
        auto elements = nlohmann::ordered_json::array();
        for (const auto &element : converted) {
            nlohmann::ordered_json entry{{"path", element.path}, {"copied", element.copied}};
            if (!element.copied) { // a copied element was not read: its counts are not known
                entry["stored_before"] = element.storedBefore;
                entry["stored_after"] = element.storedAfter;
            }
            elements.push_back(entry);
        }
        nlohmann::ordered_json json{{"output", options.request.output}, {"layout", options.layout}, {"elements", elements}};
        addMemoryReport(json, budget);
        std::cout << json.dump(2) << '\n';
        return;
    }
    for (const auto &element : converted) {
        if (element.copied)
            std::cout << element.path << ": copied unchanged\n";
        else
            std::cout << element.path << ": " << options.layout << ", " << element.storedAfter << " stored values\n";
    }
}

} // namespace

void addConvertCommand(CLI::App &app)
{
    auto options = std::make_shared<ConvertOptions>();
    auto *command = app.add_subcommand("convert", "Convert tensors of an HDF5 file to another storage layout");
    command->add_option("IN", options->request.input, "Input HDF5 file")->required();
    command->add_option("OUT", options->request.output, "Output HDF5 file (written atomically)")->required();
    command->add_option("--layout", options->layout, "Target layout")->required()->check(CLI::IsMember(layoutChoices(false)));
    command->add_option("--dataset", options->request.datasets, "Element to convert (repeatable; default: all)");
    command->add_flag("--keep-others", options->request.keepOthers,
                      "Copy the input's other elements unchanged, and those the layout cannot hold when no --dataset is "
                      "given (default: OUT holds the converted elements only)");
    command->add_option("--gzip", options->request.writeOptions.gzipLevel, "gzip level 1-9 (default: none)")
        ->check(CLI::Range(0, 9));
    command->add_option("--index-width", options->indexWidth, "csr/csc index type (auto: int32 when it fits)")
        ->check(CLI::IsMember({"auto", "int32", "int64"}));
    addMemoryLimitOption(command, options->memoryLimit);
    command->add_flag("--json", options->json, "Print a JSON report on stdout");
    command->callback([options] { runConvert(*options); });
}

} // namespace sparsity::cli
