#include "core/sparsify/sparsifier_parameters.h"

#include "core/sparsify/sparsifier_methods.h"
#include "core/util/choices.h"
#include "core/util/errors.h"

#include <algorithm>
#include <tuple>

namespace sparsity::core {
namespace {

using enum SparsifierMethod;

std::string blockText(const SparsifierConfig &c) { return std::to_string(c.blockRows) + "x" + std::to_string(c.blockCols); }

const SparsifierParameter kParameters[] = {
    {Threshold, "threshold", ParameterKind::Number, "|x| < T is pruned (default 0)",
     [](const SparsifierConfig &c) -> std::optional<ParameterValue> { return c.threshold; },
     [](SparsifierConfig &c, const ParameterValue &v) { c.threshold = std::get<double>(v); }},
    {DataNorm, "sparsity_level", ParameterKind::Number, "fraction of blocks sparsified (default 0.5)",
     [](const SparsifierConfig &c) -> std::optional<ParameterValue> { return c.sparsityLevel; },
     [](SparsifierConfig &c, const ParameterValue &v) { c.sparsityLevel = std::get<double>(v); }},
    {DataNorm, "block", ParameterKind::Text, "block shape RxC (default 1x4)",
     [](const SparsifierConfig &c) -> std::optional<ParameterValue> { return blockText(c); },
     [](SparsifierConfig &c, const ParameterValue &v) {
         std::tie(c.blockRows, c.blockCols) = parseBlockShape(std::get<std::string>(v));
     }},
    {DataNorm, "zeros_per_block", ParameterKind::Integer, "zeros per sparsified block (default: all)",
     [](const SparsifierConfig &c) -> std::optional<ParameterValue> {
         if (!c.zerosPerBlock)
             return std::nullopt;
         return *c.zerosPerBlock;
     },
     [](SparsifierConfig &c, const ParameterValue &v) { c.zerosPerBlock = std::get<std::int64_t>(v); }},
    {DataNorm, "norm", ParameterKind::Text, "L1 or L2 (default L1)",
     [](const SparsifierConfig &c) -> std::optional<ParameterValue> {
         return std::string(c.norm == BlockNorm::L2 ? "L2" : "L1");
     },
     [](SparsifierConfig &c, const ParameterValue &v) {
         c.norm = parseChoice<BlockNorm>("norm", std::get<std::string>(v), {{"L1", BlockNorm::L1}, {"L2", BlockNorm::L2}});
     }},
    {NM, "n", ParameterKind::Integer, "kept per group (default 2)",
     [](const SparsifierConfig &c) -> std::optional<ParameterValue> { return c.n; },
     [](SparsifierConfig &c, const ParameterValue &v) { c.n = std::get<std::int64_t>(v); }},
    {NM, "m", ParameterKind::Integer, "group size along the last dim (default 4)",
     [](const SparsifierConfig &c) -> std::optional<ParameterValue> { return c.m; },
     [](SparsifierConfig &c, const ParameterValue &v) { c.m = std::get<std::int64_t>(v); }},
    {RowNorm, "keep", ParameterKind::Number, "fraction of rows kept (default 0.5)",
     [](const SparsifierConfig &c) -> std::optional<ParameterValue> { return c.keep; },
     [](SparsifierConfig &c, const ParameterValue &v) { c.keep = std::get<double>(v); }},
};

} // namespace

std::span<const SparsifierParameter> sparsifierParameters() { return kParameters; }

const SparsifierParameter *parameterOf(std::string_view key)
{
    const auto found = std::ranges::find(kParameters, key, &SparsifierParameter::key);
    return found == std::end(kParameters) ? nullptr : found;
}

std::string flagOf(const SparsifierParameter &parameter)
{
    std::string flag = "--" + std::string(parameter.key);
    std::ranges::replace(flag, '_', '-');
    return flag;
}

void requireParameterOf(SparsifierMethod method, const SparsifierParameter &parameter, std::string_view where)
{
    if (parameter.method != method)
        throw InputError(std::string(where) + " must not be given for " + std::string(methodName(method))
                         + ", but it is given (a parameter of " + std::string(methodName(parameter.method)) + ")");
}

} // namespace sparsity::core
