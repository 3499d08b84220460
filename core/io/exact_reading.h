#pragma once
// How values stored in one type are read into another by our own code (a compressed chunk's
// values, inflated on the OpenMP threads: core/io/parallel_deflate.h) and still come out as
// HDF5's H5Dread makes them: only where the conversion is exact, so that there is one answer.
// HDF5 makes every other conversion (narrowing, rounding, clamping) its own way, and those
// reads stay HDF5's.
#include "core/io/h5_types.h"
#include "core/io/parallel_deflate.h"
#include "core/tensor/dtype.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

namespace sparsity::core {

// A stored S converted to T exactly: the same type, or a wider one that holds every value (an
// integer into an integer of as many digits or more and a sign that holds it, or into a float
// whose significand holds it; a float into a double).
template <class S, class T>
constexpr bool convertsExactly()
{
    if constexpr (std::is_same_v<S, T>)
        return true;
    else if constexpr (std::is_floating_point_v<S>)
        return std::is_same_v<S, float> && std::is_same_v<T, double>;
    else if constexpr (std::is_integral_v<T>)
        return std::numeric_limits<T>::digits >= std::numeric_limits<S>::digits && (std::is_signed_v<T> || !std::is_signed_v<S>);
    else
        return std::numeric_limits<T>::digits >= std::numeric_limits<S>::digits;
}

namespace detail {

// `count` stored values into T (unaligned both sides: offsets into a chunk's bytes).
template <class S, class T>
void convertValues(const unsigned char *stored, unsigned char *into, std::size_t count)
{
    for (std::size_t i = 0; i < count; ++i) {
        S value;
        std::memcpy(&value, stored + i * sizeof(S), sizeof(S));
        const T converted = static_cast<T>(value);
        std::memcpy(into + i * sizeof(T), &converted, sizeof(T));
    }
}

// h5py's bool bytes as a read of them makes them (core/io/h5_reader.cpp): 0 or 1.
template <class T>
void convertBoolBytes(const unsigned char *stored, unsigned char *into, std::size_t count)
{
    for (std::size_t i = 0; i < count; ++i) {
        const T converted = static_cast<T>(stored[i] != 0);
        std::memcpy(into + i * sizeof(T), &converted, sizeof(T));
    }
}

// f(S{}) for the C++ type S of a stored number; nothing for those without one (float16) and
// for bool (an enum, read as its bytes).
template <class F>
auto withStoredType(DType stored, F f) -> std::optional<decltype(f(float{}))>
{
    switch (stored) {
    case DType::Int8:
        return f(std::int8_t{});
    case DType::Int16:
        return f(std::int16_t{});
    case DType::Int32:
        return f(std::int32_t{});
    case DType::Int64:
        return f(std::int64_t{});
    case DType::UInt8:
        return f(std::uint8_t{});
    case DType::UInt16:
        return f(std::uint16_t{});
    case DType::UInt32:
        return f(std::uint32_t{});
    case DType::UInt64:
        return f(std::uint64_t{});
    case DType::Float32:
        return f(float{});
    case DType::Float64:
        return f(double{});
    case DType::Bool:
    case DType::Float16:
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace detail

// A read of values stored as `stored` into T made without HDF5's conversion: the file type the
// stored values must have (the machine's own, a bool's enum) and the conversion on the way
// (none: the bytes as stored).
struct ExactReading {
    H5Handle ownedType; // the bool enum's, which `fileType` names
    hid_t fileType = H5I_INVALID_HID;
    std::optional<ValueConversion> conversion;
};

// Nothing where the conversion to T is not exact.
template <class T>
std::optional<ExactReading> exactReadingOf(DType stored)
{
    if (stored == DType::Bool) {
        ExactReading reading{makeBoolType(), H5I_INVALID_HID, ValueConversion{sizeof(T), detail::convertBoolBytes<T>}};
        reading.fileType = reading.ownedType.id();
        return reading;
    }
    auto found = detail::withStoredType(stored, []<class S>(S) -> std::optional<ExactReading> {
        if constexpr (std::is_same_v<S, T>)
            return ExactReading{H5Handle(), nativeH5Type<S>(), std::nullopt};
        else if constexpr (convertsExactly<S, T>())
            return ExactReading{H5Handle(), nativeH5Type<S>(), ValueConversion{sizeof(T), detail::convertValues<S, T>}};
        else
            return std::nullopt;
    });
    if (!found || !*found)
        return std::nullopt;
    return std::move(**found);
}

} // namespace sparsity::core
