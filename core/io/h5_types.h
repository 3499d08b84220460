#pragma once
// Mapping between HDF5 datatypes and DType, including h5py's bool (an int8 enum FALSE=0,
// TRUE=1; uint8 0/1 is accepted as bool only when tagged so).
#include "core/io/h5_handle.h"
#include "core/tensor/dtype.h"

#include <cstdint>
#include <optional>

namespace sparsity::core {

// nullopt for non-numeric types (strings, compounds, references).
std::optional<DType> dtypeFromH5(hid_t type);
bool isH5Bool(hid_t type);

// The native memory type used to read into or write from T.
template <class T>
hid_t nativeH5Type();
template <>
inline hid_t nativeH5Type<float>()
{
    return H5T_NATIVE_FLOAT;
}
template <>
inline hid_t nativeH5Type<double>()
{
    return H5T_NATIVE_DOUBLE;
}
template <>
inline hid_t nativeH5Type<std::int64_t>()
{
    return H5T_NATIVE_INT64;
}
template <>
inline hid_t nativeH5Type<std::int32_t>()
{
    return H5T_NATIVE_INT32;
}
template <>
inline hid_t nativeH5Type<std::uint8_t>()
{
    return H5T_NATIVE_UINT8;
}
template <>
inline hid_t nativeH5Type<std::int8_t>()
{
    return H5T_NATIVE_INT8;
}
template <>
inline hid_t nativeH5Type<std::int16_t>()
{
    return H5T_NATIVE_INT16;
}
template <>
inline hid_t nativeH5Type<std::uint16_t>()
{
    return H5T_NATIVE_UINT16;
}
template <>
inline hid_t nativeH5Type<std::uint32_t>()
{
    return H5T_NATIVE_UINT32;
}
template <>
inline hid_t nativeH5Type<std::uint64_t>()
{
    return H5T_NATIVE_UINT64;
}

// h5py's bool type; the caller owns the handle.
H5Handle makeBoolType();

} // namespace sparsity::core
