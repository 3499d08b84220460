#include "core/io/h5_types.h"

namespace sparsity::core {

bool isH5Bool(hid_t type)
{
    if (H5Tget_class(type) != H5T_ENUM || H5Tget_nmembers(type) != 2 || H5Tget_size(type) != 1)
        return false;
    signed char value = -1;
    if (H5Tenum_valueof(type, "FALSE", &value) < 0 || value != 0)
        return false;
    return H5Tenum_valueof(type, "TRUE", &value) >= 0 && value == 1;
}

std::optional<DType> dtypeFromH5(hid_t type)
{
    const auto size = H5Tget_size(type);
    switch (H5Tget_class(type)) {
    case H5T_INTEGER: {
        const bool isSigned = H5Tget_sign(type) == H5T_SGN_2;
        switch (size) {
        case 1:
            return isSigned ? DType::Int8 : DType::UInt8;
        case 2:
            return isSigned ? DType::Int16 : DType::UInt16;
        case 4:
            return isSigned ? DType::Int32 : DType::UInt32;
        case 8:
            return isSigned ? DType::Int64 : DType::UInt64;
        default:
            return std::nullopt;
        }
    }
    case H5T_FLOAT:
        switch (size) {
        case 2:
            return DType::Float16;
        case 4:
            return DType::Float32;
        case 8:
            return DType::Float64;
        default:
            return std::nullopt;
        }
    case H5T_ENUM:
        if (isH5Bool(type))
            return DType::Bool;
        return std::nullopt;
    default:
        return std::nullopt;
    }
}

H5Handle makeBoolType()
{
    H5Handle type(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose);
    signed char value = 0;
    H5Tenum_insert(type.id(), "FALSE", &value);
    value = 1;
    H5Tenum_insert(type.id(), "TRUE", &value);
    return type;
}

} // namespace sparsity::core
