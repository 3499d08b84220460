#include "core/tensor/dtype.h"

#include <array>

namespace sparsity::core {
namespace {

struct DTypeInfo {
    DType type;
    std::string_view name;
    std::size_t size;
};

constexpr std::array kDTypes{
    DTypeInfo{DType::Bool, "bool", 1},       DTypeInfo{DType::Int8, "int8", 1},       DTypeInfo{DType::Int16, "int16", 2},
    DTypeInfo{DType::Int32, "int32", 4},     DTypeInfo{DType::Int64, "int64", 8},     DTypeInfo{DType::UInt8, "uint8", 1},
    DTypeInfo{DType::UInt16, "uint16", 2},   DTypeInfo{DType::UInt32, "uint32", 4},   DTypeInfo{DType::UInt64, "uint64", 8},
    DTypeInfo{DType::Float16, "float16", 2}, DTypeInfo{DType::Float32, "float32", 4}, DTypeInfo{DType::Float64, "float64", 8},
};

const DTypeInfo &info(DType type) { return kDTypes[static_cast<std::size_t>(type)]; }

} // namespace

std::string_view dtypeName(DType type) { return info(type).name; }
std::size_t dtypeSize(DType type) { return info(type).size; }

std::optional<DType> parseDType(std::string_view name)
{
    for (const auto &entry : kDTypes)
        if (entry.name == name)
            return entry.type;
    return std::nullopt;
}

bool isFloatingPoint(DType type) { return type == DType::Float16 || type == DType::Float32 || type == DType::Float64; }

DType computeTypeFor(DType stored)
{
    switch (stored) {
    case DType::Bool:
    case DType::Int8:
    case DType::Int16:
    case DType::UInt8:
    case DType::UInt16:
    case DType::Float16:
    case DType::Float32:
        return DType::Float32;
    default:
        return DType::Float64;
    }
}

} // namespace sparsity::core
