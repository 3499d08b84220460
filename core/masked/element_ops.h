#pragma once
// The elementwise ops of the expression language as scalar functions, shared by the CPU block
// interpreter and the CUDA kernel so both compute the same thing. NaN handling follows torch:
// maximum/minimum/clamp propagate NaN, sign(NaN) is NaN.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

#if defined(__CUDACC__)
#define SPARSITY_ELEMENT_FN __host__ __device__ inline
#else
#define SPARSITY_ELEMENT_FN inline
#endif

namespace sparsity::core {

enum class ElementOp : std::uint8_t {
    Neg,
    Abs,
    Sqrt,
    Rsqrt,
    Square,
    Exp,
    Log,
    Sign, // unary
    Add,
    Sub,
    Mul,
    Div,
    Maximum,
    Minimum,
    Pow, // binary
    Clamp,
    Where, // ternary
};

SPARSITY_ELEMENT_FN constexpr int elementOpArity(ElementOp op)
{
    if (op <= ElementOp::Sign)
        return 1;
    if (op <= ElementOp::Pow)
        return 2;
    return 3;
}

// The op a function name or infix operator ("+", "-", "*", "/") stands for, if elementwise.
std::optional<ElementOp> elementOpNamed(std::string_view name);

template <class T>
SPARSITY_ELEMENT_FN T maximumOf(T a, T b)
{
    return (a > b || a != a) ? a : b;
}
template <class T>
SPARSITY_ELEMENT_FN T minimumOf(T a, T b)
{
    return (a < b || a != a) ? a : b;
}

template <class T>
SPARSITY_ELEMENT_FN T applyElementOp(ElementOp op, T a, T b, T c)
{
    using std::abs, std::sqrt, std::exp, std::log, std::pow;
    switch (op) {
    case ElementOp::Neg:
        return -a;
    case ElementOp::Abs:
        return abs(a);
    case ElementOp::Sqrt:
        return sqrt(a);
    case ElementOp::Rsqrt:
        return T(1) / sqrt(a);
    case ElementOp::Square:
        return a * a;
    case ElementOp::Exp:
        return exp(a);
    case ElementOp::Log:
        return log(a);
    case ElementOp::Sign:
        return a != a ? a : T((T(0) < a) - (a < T(0)));
    case ElementOp::Add:
        return a + b;
    case ElementOp::Sub:
        return a - b;
    case ElementOp::Mul:
        return a * b;
    case ElementOp::Div:
        return a / b;
    case ElementOp::Maximum:
        return maximumOf(a, b);
    case ElementOp::Minimum:
        return minimumOf(a, b);
    case ElementOp::Pow:
        return pow(a, b);
    case ElementOp::Clamp:
        return minimumOf(maximumOf(a, b), c);
    case ElementOp::Where:
        return a != T(0) ? b : c;
    }
    return a;
}

} // namespace sparsity::core
