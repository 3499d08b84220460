#include "core/pipeline/batch_recipe.h"

#include "core/io/output_path.h"
#include "core/sparsify/sparsifier_methods.h"
#include "core/sparsify/sparsifier_parameters.h"
#include "core/util/errors.h"
#include "core/util/json_fields.h"

#include <algorithm>
#include <fstream>
#include <glob.h>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

namespace sparsity::core {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// Re-throws an option's InputError with the JSON path in front.
template <class F>
auto withPath(const std::string &file, const std::string &path, F &&f)
{
    try {
        return f();
    } catch (const InputError &error) {
        throw InputError(file + ": " + path + ": " + error.what());
    }
}

// A parameter's value as the JSON has it, checked to be of the parameter's kind.
ParameterValue readParameter(Fields &f, const SparsifierParameter &parameter)
{
    const std::string key(parameter.key);
    switch (parameter.kind) {
    case ParameterKind::Number:
        return *f.number(key);
    case ParameterKind::Integer:
        return *f.integer(key);
    case ParameterKind::Text:
        return *f.string(key);
    }
    throw InternalError("a sparsifier parameter of no kind");
}

// The method's keys of a sparsify object; the caller rejects unknown keys.
SparsifierConfig readSparsifier(Fields &f, const std::string &file, const std::string &path)
{
    SparsifierConfig c;
    c.method = withPath(file, f.at("method"), [&] { return parseMethod(*f.string("method", true)); });
    for (const auto &parameter : sparsifierParameters()) {
        const std::string key(parameter.key);
        if (!f.has(key))
            continue;
        // Another method's parameter is a mistake to name, not one to ignore.
        try {
            requireParameterOf(c.method, parameter, f.at(key));
        } catch (const InputError &error) {
            rethrowWithContext(error, file);
        }
        withPath(file, f.at(key), [&] {
            parameter.set(c, readParameter(f, parameter));
            return 0;
        });
    }
    withPath(file, path, [&] {
        c.validate();
        return 0;
    });
    return c;
}

SparsifyRequest parseSparsify(Fields &f, const std::string &file)
{
    SparsifyRequest r;
    r.config = readSparsifier(f, file, "$.sparsify");
    if (const auto *own = f.get("per_dataset", false))
        r.perDataset = parsePerDatasetJson(*own, file, f.at("per_dataset"));
    if (const auto limit = f.string("memory_limit"))
        r.memoryLimit = withPath(file, f.at("memory_limit"), [&] { return parseMemoryLimit(*limit, "memory_limit"); });
    f.rejectUnknown();
    return r;
}

StepRequest parseStep(Fields &f, const std::string &file)
{
    StepRequest r;
    r.kind = withPath(file, f.at("optimizer"), [&] { return parseOptimizer(*f.string("optimizer", true)); });
    r.semantics = withPath(file, f.at("semantics"), [&] { return parseSemantics(*f.string("semantics", true)); });
    if (const auto rule = f.string("rule"))
        r.rule = withPath(file, f.at("rule"), [&] { return parseRule(*rule); });
    r.param = f.string("param", true);
    r.grads = f.strings("grads", true);
    if (r.grads.empty())
        f.fail(f.at("grads"), "must name at least one gradient", "it is empty");
    r.mask = f.string("mask");
    auto &hp = r.hyperparameters;
    hp.lr = f.number("lr");
    hp.eps = f.number("eps");
    hp.weightDecay = f.number("weight_decay");
    hp.momentum = f.number("momentum");
    hp.beta1 = f.number("beta1");
    hp.beta2 = f.number("beta2");
    hp.lrDecay = f.number("lr_decay");
    hp.initialAccumulatorValue = f.number("initial_accumulator_value");
    hp.clipGradient = f.number("clip_gradient");
    hp.rescaleGrad = f.number("rescale_grad");
    hp.dampening = f.number("dampening");
    hp.nesterov = f.boolean("nesterov");
    // The rule's refusals (sparse Adagrad with weight decay, ...) are batch errors too.
    withPath(file, "$.step", [&] { return resolveOptions(r.kind, r.semantics, r.rule, r.hyperparameters); });
    f.rejectUnknown();
    return r;
}

// The JSON path of the value being parsed, kept by nlohmann's parse callback, so that a value
// the parser itself refuses (a number outside double's range, such as -1e400) is named where it
// stands: "$.sparsify.threshold".
class JsonPathTracker {
public:
    bool operator()(int depth, Json::parse_event_t event, Json &parsed)
    {
        (void)depth;
        switch (event) {
        case Json::parse_event_t::object_start:
            m_frames.push_back({false, {}, 0});
            break;
        case Json::parse_event_t::array_start:
            m_frames.push_back({true, {}, 0});
            break;
        case Json::parse_event_t::key:
            m_frames.back().key = parsed.get<std::string>();
            break;
        case Json::parse_event_t::object_end:
        case Json::parse_event_t::array_end:
            m_frames.pop_back();
            [[fallthrough]];
        case Json::parse_event_t::value:
            if (!m_frames.empty() && m_frames.back().array)
                ++m_frames.back().index;
            break;
        }
        return true;
    }

    std::string path() const
    {
        std::string path = "$";
        for (const auto &frame : m_frames)
            path += frame.array ? "[" + std::to_string(frame.index) + "]" : "." + frame.key;
        return path;
    }

private:
    struct Frame {
        bool array;
        std::string key;
        std::size_t index;
    };
    std::vector<Frame> m_frames;
};

Json parseJson(std::istream &in, const std::string &file)
{
    auto tracker = std::make_shared<JsonPathTracker>();
    try {
        return Json::parse(
            in, [tracker](int depth, Json::parse_event_t event, Json &parsed) { return (*tracker)(depth, event, parsed); });
    } catch (const Json::parse_error &error) {
        throw InputError(file + ": not a JSON file: " + error.what());
    } catch (const Json::out_of_range &error) {
        // nlohmann's message ends "number overflow parsing '-1e400'".
        const std::string what = error.what();
        const auto quote = what.find('\'');
        const std::string token = quote == std::string::npos ? what : what.substr(quote);
        throw InputError(file + ": " + tracker->path() + " must be a number within double's range (about 1.8e308), but got "
                         + token);
    } catch (const Json::exception &error) {
        throw InputError(file + ": " + tracker->path() + " cannot be read: " + error.what());
    }
}

fs::path resolved(const BatchRecipe &recipe, const std::string &path)
{
    const fs::path p(path);
    return p.is_absolute() ? p : recipe.file.parent_path() / p;
}

} // namespace

BatchRecipe parseBatch(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        throw IoError(path + ": cannot open the batch file");
    const Json root = parseJson(in, path);
    BatchRecipe recipe;
    recipe.file = fs::absolute(path);
    Fields f(root, "$", path);
    const auto version = f.integer("version");
    if (!version)
        f.fail("$.version", "must be given", "it is missing");
    if (*version != 1)
        f.fail("$.version", "must be 1", "got " + std::to_string(*version));
    recipe.inputs = f.strings("inputs", true);
    if (recipe.inputs.empty())
        f.fail("$.inputs", "must name at least one file or glob", "it is empty");
    recipe.datasets = f.strings("datasets");
    if (const auto device = f.string("device"))
        recipe.device = withPath(path, f.at("device"), [&] { return parseDeviceChoice(*device); });
    if (const auto limit = f.string("memory_limit"))
        recipe.memoryLimit = withPath(path, f.at("memory_limit"), [&] { return parseMemoryLimit(*limit, "memory_limit"); });
    if (auto sparsify = f.object("sparsify"))
        recipe.sparsify = parseSparsify(*sparsify, path);
    if (auto step = f.object("step"))
        recipe.step = parseStep(*step, path);
    auto output = f.object("output");
    if (!output)
        f.fail("$.output", "must be given", "it is missing");
    recipe.outputPattern = *output->string("path", true);
    recipe.layout = output->string("layout").value_or("dense");
    if (recipe.layout != "masked" && !parseLayout(recipe.layout))
        output->fail("$.output.layout", "must be dense, masked, coo, csr, csc or row_sparse", "got '" + recipe.layout + "'");
    const auto gzip = output->integer("gzip").value_or(0);
    if (gzip < 0 || gzip > 9)
        output->fail("$.output.gzip", "must be a gzip level from 0 to 9", "got " + std::to_string(gzip));
    recipe.gzipLevel = static_cast<int>(gzip);
    output->rejectUnknown();
    f.rejectUnknown();
    if (!recipe.sparsify && !recipe.step)
        f.fail("$", "must have a sparsify or a step recipe (or both)", "it has neither");
    if (recipe.sparsify && !recipe.datasets.empty())
        for (const auto &[dataset, config] : recipe.sparsify->perDataset)
            if (std::find(recipe.datasets.begin(), recipe.datasets.end(), dataset) == recipe.datasets.end())
                f.fail("$.sparsify.per_dataset[\"" + dataset + "\"]", "must name one of $.datasets", "it is not listed there");
    return recipe;
}

nlohmann::ordered_json sparsifierJson(const SparsifierConfig &c)
{
    nlohmann::ordered_json s{{"method", methodName(c.method)}};
    for (const auto &parameter : sparsifierParameters())
        if (parameter.method == c.method)
            if (const auto value = parameter.get(c))
                std::visit([&](const auto &v) { s[std::string(parameter.key)] = v; }, *value);
    return s;
}

SparsifierConfig parseSparsifierJson(const nlohmann::json &object, const std::string &file, const std::string &path)
{
    Fields f(object, path, file);
    auto config = readSparsifier(f, file, path);
    f.rejectUnknown();
    return config;
}

nlohmann::ordered_json perDatasetJson(const std::map<std::string, SparsifierConfig> &perDataset)
{
    auto object = nlohmann::ordered_json::object();
    for (const auto &[dataset, config] : perDataset)
        object[dataset] = sparsifierJson(config);
    return object;
}

std::map<std::string, SparsifierConfig>
parsePerDatasetJson(const nlohmann::json &object, const std::string &file, const std::string &path)
{
    if (!object.is_object())
        throw InputError(file + ": " + path + " must be an object of dataset paths, but got " + jsonTypeName(object));
    std::map<std::string, SparsifierConfig> perDataset;
    for (const auto &[dataset, config] : object.items()) {
        const std::string at = path + "[\"" + dataset + "\"]";
        if (dataset.find('\0') != std::string::npos)
            throw InputError(file + ": " + path + " must not name a dataset with a NUL character (\\u0000), but one does");
        if (dataset.empty() || dataset.front() != '/')
            throw InputError(file + ": " + at
                             + " must name a dataset by its absolute path (\"/emb\"), but it does not start with /");
        perDataset[dataset] = parseSparsifierJson(config, file, at);
    }
    return perDataset;
}

std::string batchJson(const BatchRecipe &recipe)
{
    nlohmann::ordered_json root{{"version", 1}, {"inputs", recipe.inputs}};
    if (!recipe.datasets.empty())
        root["datasets"] = recipe.datasets;
    root["device"] = deviceChoiceName(recipe.device);
    if (recipe.memoryLimit)
        root["memory_limit"] = std::to_string(*recipe.memoryLimit);
    if (recipe.sparsify) {
        auto s = sparsifierJson(recipe.sparsify->config);
        if (recipe.sparsify->memoryLimit)
            s["memory_limit"] = std::to_string(*recipe.sparsify->memoryLimit);
        if (!recipe.sparsify->perDataset.empty())
            s["per_dataset"] = perDatasetJson(recipe.sparsify->perDataset);
        root["sparsify"] = s;
    }
    if (recipe.step) {
        const auto &r = *recipe.step;
        nlohmann::ordered_json s{{"optimizer", optimizerName(r.kind)},
                                 {"semantics", semanticsName(r.semantics)},
                                 {"rule", ruleName(r.rule)},
                                 {"param", *r.param},
                                 {"grads", r.grads}};
        if (r.mask)
            s["mask"] = *r.mask;
        const auto &hp = r.hyperparameters;
        for (const auto &[key, value] : {std::pair{"lr", hp.lr},
                                         {"eps", hp.eps},
                                         {"weight_decay", hp.weightDecay},
                                         {"momentum", hp.momentum},
                                         {"beta1", hp.beta1},
                                         {"beta2", hp.beta2},
                                         {"lr_decay", hp.lrDecay},
                                         {"initial_accumulator_value", hp.initialAccumulatorValue},
                                         {"clip_gradient", hp.clipGradient},
                                         {"rescale_grad", hp.rescaleGrad},
                                         {"dampening", hp.dampening}})
            if (value)
                s[key] = *value;
        if (hp.nesterov)
            s["nesterov"] = true;
        root["step"] = s;
    }
    root["output"] = {{"layout", recipe.layout}, {"path", recipe.outputPattern}};
    if (recipe.gzipLevel > 0)
        root["output"]["gzip"] = recipe.gzipLevel;
    return root.dump(2) + "\n";
}

std::vector<BatchJob> planBatch(const BatchRecipe &recipe)
{
    const std::string file = recipe.file.string();
    std::set<std::string> inputs;
    for (std::size_t i = 0; i < recipe.inputs.size(); ++i) {
        const std::string pattern = resolved(recipe, recipe.inputs[i]).string();
        glob_t matches{};
        const int status = ::glob(pattern.c_str(), 0, nullptr, &matches);
        if (status == 0)
            for (std::size_t k = 0; k < matches.gl_pathc; ++k)
                inputs.insert(fs::weakly_canonical(matches.gl_pathv[k]).string());
        ::globfree(&matches);
        if (status != 0)
            throw InputError(file + ": $.inputs[" + std::to_string(i) + "] '" + recipe.inputs[i] + "' matches no file");
    }
    std::vector<BatchJob> jobs;
    std::map<std::string, std::string> outputs;
    for (const auto &input : inputs) {
        const fs::path in(input);
        std::string out = recipe.outputPattern;
        for (const auto &[key, value] :
             {std::pair{std::string("{stem}"), in.stem().string()}, std::pair{std::string("{name}"), in.filename().string()}})
            for (auto at = out.find(key); at != std::string::npos; at = out.find(key, at + value.size()))
                out.replace(at, key.size(), value);
        const std::string unresolved = resolved(recipe, out).string();
        if (const auto problem = outputPathProblem(unresolved))
            throw InputError(file + ": $.output.path gives " + input + " an output path that " + *problem);
        std::error_code ec;
        const std::string output = fs::weakly_canonical(unresolved, ec).string();
        if (ec)
            throw InputError(file + ": $.output.path '" + recipe.outputPattern + "' gives " + input
                             + " an output path that cannot be resolved: " + ec.message());
        if (inputs.count(output))
            throw InputError(file + ": $.output.path '" + recipe.outputPattern + "' would overwrite the input " + output);
        if (const auto [other, fresh] = outputs.emplace(output, input); !fresh)
            throw InputError(file + ": $.output.path '" + recipe.outputPattern + "' gives " + other->second + " and " + input
                             + " the same output " + output);
        jobs.push_back({input, output});
    }
    return jobs;
}

} // namespace sparsity::core
