#include "app/cli/inspect_command.h"

#include "app/cli/cli_output.h"
#include "core/io/element_count.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/parallel/rank_group.h"

#include <CLI/CLI.hpp>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

namespace sparsity::cli {
namespace {

struct InspectOptions {
    std::string file;
    bool json = false;
    bool count = false;
    std::string memoryLimit;
};

std::string layoutLabel(const core::ElementInfo &e) { return e.masked ? "masked" : std::string(core::layoutName(e.layout)); }

std::string encodingLabel(const core::ElementInfo &e) { return std::string(core::encodingName(e.encoding)); }

void runInspect(const InspectOptions &options)
{
    const auto budget = applyMemoryLimit(options.memoryLimit);
    // Across ranks every rank reads the file on its own (independent, serial access) and
    // counts its share of each dataset's rows or chunks; the counts are summed.
    const auto &group = core::ranks();
    core::ValidationReport skipped;
    std::vector<core::ElementInfo> elements;
    std::vector<std::int64_t> counts;
    core::agreeOn(group, [&] {
        const core::SoloRanksScope independent;
        const auto file = core::H5File::openRead(options.file);
        elements = core::listElements(file, &skipped);
        if (options.count)
            for (const auto &element : elements)
                counts.push_back(core::countNonzeros(file, element, {group.rank(), group.size()}));
    });
    printNotes(skipped);
    group.sum(counts);
    for (std::size_t i = 0; i < counts.size(); ++i)
        elements[i].nnz = counts[i];

    auto density = [](const core::ElementInfo &e) -> std::optional<double> {
        const auto total = core::numel(e.shape);
        if (!e.nnz || total == 0)
            return std::nullopt;
        return static_cast<double>(*e.nnz) / static_cast<double>(total);
    };

    if (options.json) {
        nlohmann::ordered_json datasets = nlohmann::ordered_json::array();
        for (const auto &e : elements) {
            const auto d = density(e);
            datasets.push_back({{"path", e.path},
                                {"layout", layoutLabel(e)},
                                {"shape", e.shape},
                                {"dtype", core::dtypeName(e.dtype)},
                                {"nnz", e.nnz ? nlohmann::ordered_json(*e.nnz) : nlohmann::ordered_json(nullptr)},
                                {"density", d ? nlohmann::ordered_json(*d) : nlohmann::ordered_json(nullptr)},
                                {"encoding", encodingLabel(e)}});
        }
        nlohmann::ordered_json json{{"file", options.file}, {"datasets", datasets}};
        addMemoryReport(json, budget);
        std::cout << json.dump(2) << '\n';
        return;
    }
    std::cout << options.file << ": " << elements.size() << " tensor" << (elements.size() == 1 ? "" : "s") << '\n';
    std::cout << std::left << std::setw(28) << "path" << std::setw(12) << "layout" << std::setw(20) << "shape" << std::setw(9)
              << "dtype" << std::setw(12) << "nnz" << std::setw(9) << "density"
              << "encoding\n";
    for (const auto &e : elements) {
        const auto d = density(e);
        std::ostringstream densityText;
        if (d)
            densityText << std::fixed << std::setprecision(4) << *d;
        else
            densityText << "-";
        std::cout << std::left << std::setw(28) << e.path << std::setw(12) << layoutLabel(e) << std::setw(20)
                  << core::shapeToString(e.shape) << std::setw(9) << core::dtypeName(e.dtype) << std::setw(12)
                  << (e.nnz ? std::to_string(*e.nnz) : "-") << std::setw(9) << densityText.str() << encodingLabel(e) << '\n';
    }
}

} // namespace

void addInspectCommand(CLI::App &app)
{
    auto options = std::make_shared<InspectOptions>();
    auto *command = app.add_subcommand("inspect", "List the tensors of an HDF5 file (reads metadata only)");
    command->add_option("FILE", options->file, "HDF5 file")->required();
    command->add_flag("--json", options->json, "Print one JSON object on stdout");
    command->add_flag("--count", options->count, "Count nonzeros of dense data and specified elements of masked data");
    addMemoryLimitOption(command, options->memoryLimit);
    command->callback([options] { runInspect(*options); });
}

} // namespace sparsity::cli
