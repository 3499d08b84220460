#pragma once
// Mapping between HDF5 datatypes and DType, including h5py's bool (an int8 enum FALSE=0,
// TRUE=1; uint8 0/1 is accepted as bool only when tagged so).
#include "core/io/h5_handle.h"
#include "core/tensor/dtype.h"

#include <cstdint>
#include <optional>
#include <type_traits>

namespace sparsity::core {

// nullopt for non-numeric types (strings, compounds, references).
std::optional<DType> dtypeFromH5(hid_t type);
bool isH5Bool(hid_t type);

// The native memory type used to read into or write from T.
template <class T>
hid_t nativeH5Type()
{
    if constexpr (std::is_same_v<T, float>)
        return H5T_NATIVE_FLOAT;
    else if constexpr (std::is_same_v<T, double>)
        return H5T_NATIVE_DOUBLE;
    else if constexpr (std::is_same_v<T, std::int8_t>)
        return H5T_NATIVE_INT8;
    else if constexpr (std::is_same_v<T, std::int16_t>)
        return H5T_NATIVE_INT16;
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return H5T_NATIVE_INT32;
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return H5T_NATIVE_INT64;
    else if constexpr (std::is_same_v<T, std::uint8_t>)
        return H5T_NATIVE_UINT8;
    else if constexpr (std::is_same_v<T, std::uint16_t>)
        return H5T_NATIVE_UINT16;
    else if constexpr (std::is_same_v<T, std::uint32_t>)
        return H5T_NATIVE_UINT32;
    else {
        static_assert(std::is_same_v<T, std::uint64_t>, "nativeH5Type: a number type expected");
        return H5T_NATIVE_UINT64;
    }
}

// h5py's bool type; the caller owns the handle.
H5Handle makeBoolType();

} // namespace sparsity::core
