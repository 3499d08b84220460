#pragma once
// Element types. Compute happens in Float32 or Float64; every other numeric type (and Bool)
// is read and converted with a notice: see computeTypeFor().
#include <cstddef>
#include <optional>
#include <string_view>

namespace sparsity::core {

enum class DType { Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Float16, Float32, Float64 };

std::string_view dtypeName(DType type); // numpy spelling: "float32", "bool", ...
std::optional<DType> parseDType(std::string_view name);
std::size_t dtypeSize(DType type);
bool isFloatingPoint(DType type);

// The compute type a stored type is read into: the smallest float type that holds every
// value exactly (float32 for bool, 8/16-bit integers and float16; float64 otherwise).
DType computeTypeFor(DType stored);

// f(float{}) or f(double{}): f called with a value of the compute type of `stored`, for code
// templated on it (both calls must return the same type).
template <class F>
decltype(auto) withComputeType(DType stored, F &&f)
{
    if (computeTypeFor(stored) == DType::Float32)
        return f(float{});
    return f(double{});
}

template <class T>
constexpr DType dtypeOf();
template <>
constexpr DType dtypeOf<float>()
{
    return DType::Float32;
}
template <>
constexpr DType dtypeOf<double>()
{
    return DType::Float64;
}

} // namespace sparsity::core
