#pragma once
// The functions of the expression language and how many arguments each takes. The evaluator
// (and autograd) implement them; the parser checks calls against this table.
#include <optional>
#include <span>
#include <string_view>

namespace sparsity::core {

struct FunctionSignature {
    std::string_view name;
    int minArgs;
    int maxArgs;
    std::string_view usage; // e.g. "sum(x[, dim])"
};

std::span<const FunctionSignature> allFunctions();
const FunctionSignature *findFunction(std::string_view name);

} // namespace sparsity::core
