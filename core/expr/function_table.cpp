#include "core/expr/function_table.h"

#include <array>

namespace sparsity::core {
namespace {

// docs/SEMANTICS.md, "Expressions": unary, binary (as functions too), reductions over all dims or one,
// softmax along a dim, where, products, and the sparse/masked conversions.
constexpr std::array kFunctions{
    FunctionSignature{"neg", 1, 1, "neg(x)"},
    FunctionSignature{"abs", 1, 1, "abs(x)"},
    FunctionSignature{"sqrt", 1, 1, "sqrt(x)"},
    FunctionSignature{"rsqrt", 1, 1, "rsqrt(x)"},
    FunctionSignature{"square", 1, 1, "square(x)"},
    FunctionSignature{"pow", 2, 2, "pow(x, exponent)"},
    FunctionSignature{"exp", 1, 1, "exp(x)"},
    FunctionSignature{"log", 1, 1, "log(x)"},
    FunctionSignature{"sign", 1, 1, "sign(x)"},
    FunctionSignature{"clamp", 3, 3, "clamp(x, lo, hi)"},
    FunctionSignature{"add", 2, 2, "add(x, y)"},
    FunctionSignature{"sub", 2, 2, "sub(x, y)"},
    FunctionSignature{"mul", 2, 2, "mul(x, y)"},
    FunctionSignature{"div", 2, 2, "div(x, y)"},
    FunctionSignature{"maximum", 2, 2, "maximum(x, y)"},
    FunctionSignature{"minimum", 2, 2, "minimum(x, y)"},
    FunctionSignature{"sum", 1, 2, "sum(x[, dim])"},
    FunctionSignature{"mean", 1, 2, "mean(x[, dim])"},
    FunctionSignature{"amax", 1, 2, "amax(x[, dim])"},
    FunctionSignature{"amin", 1, 2, "amin(x[, dim])"},
    FunctionSignature{"norm", 1, 2, "norm(x[, dim])"},
    FunctionSignature{"softmax", 2, 2, "softmax(x, dim)"},
    FunctionSignature{"log_softmax", 2, 2, "log_softmax(x, dim)"},
    FunctionSignature{"where", 3, 3, "where(condition, x, y)"},
    FunctionSignature{"mm", 2, 2, "mm(a, b)"},
    FunctionSignature{"sparse_mm", 2, 2, "sparse_mm(a, b)"},
    FunctionSignature{"sparse_mask", 2, 2, "sparse_mask(x, pattern)"},
    FunctionSignature{"to_dense", 1, 2, "to_dense(x[, masked_grad])"},
    FunctionSignature{"to_sparse", 1, 1, "to_sparse(x)"},
    FunctionSignature{"intersect", 2, 2, "intersect(x, y)"},
    FunctionSignature{"data", 1, 1, "data(x)"},
    FunctionSignature{"masked", 2, 2, "masked(x, mask)"},
};

} // namespace

std::span<const FunctionSignature> allFunctions() { return kFunctions; }

const FunctionSignature *findFunction(std::string_view name)
{
    for (const auto &f : kFunctions)
        if (f.name == name)
            return &f;
    return nullptr;
}

} // namespace sparsity::core
