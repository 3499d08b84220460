#include "core/sparsify/sparsifier_config.h"

#include "core/sparsify/sparsifier_methods.h"
#include "core/sparsify/sparsifier_parameters.h"
#include "core/util/choices.h"
#include "core/util/errors.h"

#include <charconv>

namespace sparsity::core {
const SparsifierMethodFacts &factsOf(SparsifierMethod method)
{
    for (const auto &facts : kSparsifierMethods)
        if (facts.method == method)
            return facts;
    throw InternalError("a sparsifier method without facts");
}

std::string_view methodName(SparsifierMethod method) { return factsOf(method).name; }

void requireLeastRank(SparsifierMethod method, std::size_t rank)
{
    const auto &facts = factsOf(method);
    if (static_cast<int>(rank) < facts.leastRank)
        throw errors::mustBe(std::string(facts.name) + " data", "have rank >= " + std::to_string(facts.leastRank),
                             "a " + std::to_string(rank) + "-d tensor");
}

SparsifierMethod parseMethod(std::string_view name)
{
    return parseChoice(
        "method", name, kSparsifierMethods, [](const auto &facts) { return facts.name; },
        [](const auto &facts) { return facts.method; });
}

bool applyScheduleLevel(SparsifierConfig &config, double level)
{
    switch (factsOf(config.method).level) {
    case LevelRule::None:
        return false;
    case LevelRule::SparsityLevel:
        config.sparsityLevel = level;
        return true;
    case LevelRule::KeepComplement:
        config.keep = 1.0 - level;
        return true;
    }
    return false;
}

std::pair<std::int64_t, std::int64_t> parseBlockShape(std::string_view text)
{
    const auto x = text.find('x');
    std::int64_t rows = -1, cols = -1;
    const bool ok = x != std::string_view::npos && std::from_chars(text.data(), text.data() + x, rows).ec == std::errc{}
                    && std::from_chars(text.data() + x + 1, text.data() + text.size(), cols).ec == std::errc{};
    if (!ok)
        throw errors::mustBe("block", "be ROWSxCOLS (e.g. 1x4)", "'" + std::string(text) + "'");
    return {rows, cols};
}

void SparsifierConfig::validate() const
{
    for (const auto &parameter : sparsifierParameters())
        if (parameter.method == method)
            requireInRange(parameter, *this);
    // The rules between parameters.
    switch (method) {
    case SparsifierMethod::DataNorm:
        if (blockRows <= 0 || blockCols <= 0)
            throw errors::mustBe("block", "have positive extents", std::to_string(blockRows) + "x" + std::to_string(blockCols));
        if (resolvedZerosPerBlock() > blockSize())
            throw errors::mustBe("zeros_per_block", "be at most the block size " + std::to_string(blockSize()),
                                 std::to_string(resolvedZerosPerBlock()));
        return;
    case SparsifierMethod::NM:
        if (n > m)
            throw errors::mustBe("n", "be at most m (" + std::to_string(m) + ")", std::to_string(n));
        return;
    case SparsifierMethod::Threshold:
    case SparsifierMethod::RowNorm:
        return;
    }
}

} // namespace sparsity::core
