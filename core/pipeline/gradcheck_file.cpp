#include "core/pipeline/gradcheck_file.h"

#include "core/util/elapsed.h"
#include "core/util/errors.h"

#include <algorithm>
#include <cmath>

namespace sparsity::core {
namespace {

void requireOption(const char *name, double value, bool positive)
{
    if (!std::isfinite(value) || value < 0.0 || (positive && value == 0.0))
        throw errors::mustBe(name, positive ? "be a number > 0" : "be a number >= 0", std::to_string(value));
}

} // namespace

GradcheckFileReport gradcheckFile(const GradcheckRequest &request, ValidationReport &report, const ProgressCallback &progress)
{
    const auto start = Clock::now();
    requireOption("eps", request.options.eps, true);
    requireOption("atol", request.options.atol, false);
    requireOption("rtol", request.options.rtol, false);
    const auto expression = parseExpression(request.expression);
    GradcheckFileReport result;
    result.inputs = bindInputs(request.inputs, *expression, request.expression);
    const auto tensors = readBoundInputs(result.inputs, report);
    const auto used = expression->inputNames();
    for (const auto &input : result.inputs) {
        if (std::find(used.begin(), used.end(), input.binding.name) == used.end())
            continue;
        const bool floating = input.dtype == DType::Float16 || input.dtype == DType::Float32 || input.dtype == DType::Float64;
        if (!floating && input.dtype != DType::Bool)
            throw InputError(input.binding.file + ":" + input.binding.path + ": input '" + input.binding.name
                             + "' must be "
                               "floating point to take a gradient, but it is "
                             + std::string(dtypeName(input.dtype)) + " (bool datasets are masks)");
    }
    const bool anyDifferentiable = std::any_of(result.inputs.begin(), result.inputs.end(), [&](const BoundInput &input) {
        return input.dtype != DType::Bool && std::find(used.begin(), used.end(), input.binding.name) != used.end();
    });
    if (!anyDifferentiable)
        throw errors::mustBe("expression '" + request.expression + "'",
                             "use at least one floating-point input to take a "
                             "gradient of",
                             "only bool inputs (masks), which get no gradient");
    auto options = request.options;
    for (const auto &input : result.inputs)
        options.inputLabels[input.binding.name] = input.binding.file + ":" + input.binding.path;
    const auto inputsRead = Clock::now();
    result.check = gradcheck(*expression, request.expression, tensors, options, progress);
    result.computeSeconds = secondsSince(inputsRead);
    result.ioSeconds = secondsBetween(start, inputsRead);
    return result;
}

} // namespace sparsity::core
