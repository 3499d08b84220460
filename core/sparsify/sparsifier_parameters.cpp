#include "core/sparsify/sparsifier_parameters.h"

#include "core/sparsify/sparsifier_methods.h"
#include "core/util/choices.h"
#include "core/util/errors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace sparsity::core {
namespace {

using enum SparsifierMethod;

std::string blockText(const SparsifierConfig &c) { return std::to_string(c.blockRows) + "x" + std::to_string(c.blockCols); }

constexpr std::string_view kNormNames[] = {"L1", "L2"}; // in BlockNorm's order
constexpr double kInfinite = std::numeric_limits<double>::infinity();

const SparsifierParameter kParameters[] = {
    {.method = Threshold,
     .key = "threshold",
     .kind = ParameterKind::Number,
     .label = "Prune |x| below",
     .help = "|x| < T is pruned (default 0)",
     .range = {0.0, kInfinite},
     .get = [](const SparsifierConfig &c) -> std::optional<ParameterValue> { return c.threshold; },
     .set = [](SparsifierConfig &c, const ParameterValue &v) { c.threshold = std::get<double>(v); }},
    {.method = DataNorm,
     .key = "sparsity_level",
     .kind = ParameterKind::Number,
     .label = "Sparsity level",
     .help = "fraction of blocks sparsified (default 0.5)",
     .range = {0.0, 1.0},
     .get = [](const SparsifierConfig &c) -> std::optional<ParameterValue> { return c.sparsityLevel; },
     .set = [](SparsifierConfig &c, const ParameterValue &v) { c.sparsityLevel = std::get<double>(v); }},
    {.method = DataNorm,
     .key = "block",
     .kind = ParameterKind::Text,
     .label = "Block (rows x cols)",
     .help = "block shape RxC (default 1x4)",
     .get = [](const SparsifierConfig &c) -> std::optional<ParameterValue> { return blockText(c); },
     .set = [](SparsifierConfig &c,
               const ParameterValue &v) { std::tie(c.blockRows, c.blockCols) = parseBlockShape(std::get<std::string>(v)); }},
    {.method = DataNorm,
     .key = "zeros_per_block",
     .kind = ParameterKind::Integer,
     .label = "Zeros per block",
     .help = "zeros per sparsified block (default: all)",
     .range = {0.0, kInfinite},
     .unsetMeaning = "whole block",
     .get = [](const SparsifierConfig &c) -> std::optional<ParameterValue> {
         if (!c.zerosPerBlock)
             return std::nullopt;
         return *c.zerosPerBlock;
     },
     .set = [](SparsifierConfig &c, const ParameterValue &v) { c.zerosPerBlock = std::get<std::int64_t>(v); }},
    {.method = DataNorm,
     .key = "norm",
     .kind = ParameterKind::Text,
     .label = "Block norm",
     .help = "L1 or L2 (default L1)",
     .choices = kNormNames,
     .get = [](const SparsifierConfig &c) -> std::optional<ParameterValue> {
         return std::string(kNormNames[static_cast<int>(c.norm)]);
     },
     .set =
         [](SparsifierConfig &c, const ParameterValue &v) {
             c.norm = parseChoice<BlockNorm>("norm", std::get<std::string>(v),
                                             {{kNormNames[0], BlockNorm::L1}, {kNormNames[1], BlockNorm::L2}});
         }},
    {.method = NM,
     .key = "n",
     .kind = ParameterKind::Integer,
     .label = "Keep N",
     .help = "kept per group (default 2)",
     .range = {0.0, kInfinite},
     .get = [](const SparsifierConfig &c) -> std::optional<ParameterValue> { return c.n; },
     .set = [](SparsifierConfig &c, const ParameterValue &v) { c.n = std::get<std::int64_t>(v); }},
    {.method = NM,
     .key = "m",
     .kind = ParameterKind::Integer,
     .label = "of every M",
     .help = "group size along the last dim (default 4)",
     .range = {1.0, kInfinite},
     .get = [](const SparsifierConfig &c) -> std::optional<ParameterValue> { return c.m; },
     .set = [](SparsifierConfig &c, const ParameterValue &v) { c.m = std::get<std::int64_t>(v); }},
    {.method = RowNorm,
     .key = "keep",
     .kind = ParameterKind::Number,
     .label = "Rows kept (by L2 norm)",
     .help = "fraction of rows kept (default 0.5)",
     .range = {0.0, 1.0},
     .get = [](const SparsifierConfig &c) -> std::optional<ParameterValue> { return c.keep; },
     .set = [](SparsifierConfig &c, const ParameterValue &v) { c.keep = std::get<double>(v); }},
};

} // namespace

std::span<const SparsifierParameter> sparsifierParameters() { return kParameters; }

const SparsifierParameter *parameterOf(std::string_view key)
{
    const auto found = std::ranges::find(kParameters, key, &SparsifierParameter::key);
    return found == std::end(kParameters) ? nullptr : found;
}

void requireInRange(const SparsifierParameter &parameter, const SparsifierConfig &config)
{
    if (parameter.kind == ParameterKind::Text)
        return;
    const auto value = parameter.get(config);
    if (!value)
        return;
    const double x =
        parameter.kind == ParameterKind::Number ? std::get<double>(*value) : static_cast<double>(std::get<std::int64_t>(*value));
    const auto &[least, most] = parameter.range;
    if (x >= least && x <= most) // false for NaN
        return;
    const std::string actual =
        parameter.kind == ParameterKind::Number ? errors::number(x) : std::to_string(std::get<std::int64_t>(*value));
    const std::string kind = parameter.kind == ParameterKind::Number ? "a number " : "";
    throw errors::mustBe(parameter.key,
                         std::isinf(most) ? "be " + kind + ">= " + errors::number(least)
                                          : "be in [" + errors::number(least) + ", " + errors::number(most) + "]",
                         actual);
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
