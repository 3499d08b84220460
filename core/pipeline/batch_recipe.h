#pragma once
// BATCH.json (docs/CLI.md, "BATCH.json"): the recipe `sparsity run` replays and the GUI writes. Keys are the CLI
// option names with '-' written '_'. parseBatch() checks every key and type and names what is
// wrong by its JSON path ("batch.json: $.sparsify.threshold must be a number, but got a
// string"); planBatch() expands the input globs and the output path pattern, without opening
// any input.
#include "core/pipeline/sparsify_file.h"
#include "core/pipeline/step_file.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace sparsity::core {

struct BatchRecipe {
    std::filesystem::path file;        // the batch file; relative paths start at its folder
    std::vector<std::string> inputs;   // file names or globs
    std::vector<std::string> datasets; // empty: every numeric dataset
    DeviceChoice device = DeviceChoice::Auto;
    std::optional<std::int64_t> memoryLimit; // memory_limit: every input's budget; nullopt: auto
    std::optional<SparsifyRequest> sparsify; // input/output left empty
    std::optional<StepRequest> step;         // input/output left empty
    std::string layout = "dense";            // output.layout
    std::string outputPattern;               // output.path, with {stem} and {name}
    int gzipLevel = 0;                       // output.gzip: 0 none, 1..9 (sparsified datasets)
};

// Throws InputError (exit 2) for a file that is not JSON, an unknown key, a wrong type, a
// missing required key or an invalid value; IoError when the file cannot be read.
BatchRecipe parseBatch(const std::string &path);

// The recipe as BATCH.json text that parseBatch() reads back to the same recipe: what the
// GUI's "Save as batch" writes. Inputs and the output pattern are written as given.
std::string batchJson(const BatchRecipe &recipe);

// The "sparsify" object of BATCH.json without memory_limit — the sparsifier as the GUI's
// workspace stores it too. parseSparsifierJson names errors by `path` ("$.sparsifier.n ...").
nlohmann::ordered_json sparsifierJson(const SparsifierConfig &config);
SparsifierConfig parseSparsifierJson(const nlohmann::json &object, const std::string &file, const std::string &path);

// "sparsify.per_dataset": {"/W": {"method": "n-m", ...}, ...} — datasets with their own
// sparsifier (absolute paths; the rest get the sparsify object's). Also the workspace's.
nlohmann::ordered_json perDatasetJson(const std::map<std::string, SparsifierConfig> &perDataset);
std::map<std::string, SparsifierConfig>
parsePerDatasetJson(const nlohmann::json &object, const std::string &file, const std::string &path);

struct BatchJob {
    std::string input;
    std::string output;
};

// One job per input file matched (sorted, each once). Throws InputError naming a glob that
// matches nothing, an output that would overwrite an input, or two inputs with one output.
std::vector<BatchJob> planBatch(const BatchRecipe &recipe);

} // namespace sparsity::core
