#include "core/pipeline/eval_file.h"

#include "core/io/atomic_output.h"
#include "core/io/file_identity.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/util/errors.h"

#include <chrono>
#include <set>

namespace sparsity::core {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

bool isIdentifier(const std::string &name)
{
    if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
        return false;
    return std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

void requireBound(const Expression &node, std::string_view source, const std::set<std::string> &names)
{
    if (node.kind == Expression::Kind::Name && !names.count(node.name)) {
        std::string known;
        for (const auto &name : names)
            known += (known.empty() ? "" : ", ") + name;
        throw expressionError(source, node.column,
                              "unknown input '" + node.name + "' (inputs: " + (known.empty() ? "none" : known) + ")");
    }
    for (const auto &operand : node.operands)
        requireBound(*operand, source, names);
}

} // namespace

InputBinding parseInputBinding(const std::string &argument)
{
    const auto equals = argument.find('=');
    const auto colon = argument.rfind(':');
    if (equals == std::string::npos || colon == std::string::npos || colon < equals)
        throw errors::mustBe("--input '" + argument + "'", "have the form NAME=FILE.h5:PATH", "no '=' or ':'");
    InputBinding binding{argument.substr(0, equals), argument.substr(equals + 1, colon - equals - 1), argument.substr(colon + 1)};
    if (!isIdentifier(binding.name))
        throw errors::mustBe("--input '" + argument + "'", "start with a name of letters, digits and '_'",
                             "'" + binding.name + "'");
    if (binding.file.empty() || binding.path.empty())
        throw errors::mustBe("--input '" + argument + "'", "name a file and a dataset path", "an empty one");
    return binding;
}

EvalReport evalFile(const EvalRequest &request, ValidationReport &report)
{
    const auto start = Clock::now();
    const auto expression = parseExpression(request.expression);
    EvalReport result;
    std::set<std::string> names;
    for (const auto &argument : request.inputs) {
        auto binding = parseInputBinding(argument);
        if (!names.insert(binding.name).second)
            throw errors::mustBe("--input " + binding.name, "be bound once", "bound twice");
        refuseOverwritingInput(request.output, binding.file);
        result.inputs.push_back({std::move(binding), {}, Layout::Dense, DType::Float32, false, 0});
    }
    requireBound(*expression, request.expression, names);
    result.device = resolveDevice(request.device);

    std::vector<NamedTensor> tensors;
    for (auto &input : result.inputs) {
        const H5File file = H5File::openRead(input.binding.file);
        const ElementInfo element = requireElement(file, input.binding.path);
        // A bool dataset is a mask here, which is what the conversion notice would question.
        const bool isBool = element.dtype == DType::Bool;
        Tensor tensor = readTensor(file, input.binding.path, isBool ? nullptr : &report);
        input.shape = tensor.shape();
        input.layout = tensor.layout();
        input.dtype = element.dtype;
        input.masked = tensor.isMasked();
        input.specified = tensor.specifiedCount();
        tensors.push_back({input.binding.name, std::move(tensor), isBool});
    }
    const auto inputs = makeEvalInputs(tensors);
    tensors.clear();
    const auto inputsRead = Clock::now();
    result.result = evaluateExpression(*expression, request.expression, inputs, request.policy, result.device);
    const Tensor tensor = toTensor(result.result);
    const auto computed = Clock::now();

    AtomicOutput output(request.output);
    writeTensor(output.file(), "/result", tensor);
    output.commit();
    result.layout = tensor.layout();
    result.specified = tensor.specifiedCount();
    result.stored = tensor.storedCount();
    result.computeSeconds = seconds(inputsRead, computed);
    result.ioSeconds = seconds(start, inputsRead) + seconds(computed, Clock::now());
    return result;
}

} // namespace sparsity::core
