#include "core/io/h5_attributes.h"

#include "core/util/errors.h"

namespace sparsity::core {

namespace {

// Attributes we read are short: a name, a shape. Sizes past these come from a corrupt header.
constexpr hssize_t kMaxAttributeValues = 1 << 16;
constexpr std::size_t kMaxFixedStringBytes = 1 << 16;

} // namespace

bool hasStringAttribute(hid_t object, const char *name)
{
    if (H5Aexists(object, name) <= 0)
        return false;
    H5Handle attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
    if (!attr.isValid())
        return false;
    H5Handle type(H5Aget_type(attr.id()), H5Tclose);
    return type.isValid() && H5Tget_class(type.id()) == H5T_STRING;
}

std::optional<std::string> readStringAttribute(hid_t object, const char *name)
{
    if (H5Aexists(object, name) <= 0)
        return std::nullopt;
    H5Handle attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
    H5Handle type(H5Aget_type(attr.id()), H5Tclose);
    if (!attr.isValid() || H5Tget_class(type.id()) != H5T_STRING)
        return std::nullopt;
    H5Handle space(H5Aget_space(attr.id()), H5Sclose);
    if (H5Sget_simple_extent_npoints(space.id()) != 1)
        return std::nullopt;
    if (H5Tis_variable_str(type.id()) > 0) {
        // One heap reference (length, collection address, index): nothing else is a vlen string.
        if (H5Aget_storage_size(attr.id()) > 32)
            return std::nullopt;
        H5Handle memType(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(memType.id(), H5T_VARIABLE);
        H5Tset_cset(memType.id(), H5Tget_cset(type.id()));
        char *value = nullptr;
        // The value lives in the global heap, which HDF5 1.10.8 trusts: a corrupt collection can
        // crash or hang H5Aread, and nothing before this line can tell (docs/KNOWN_LIMITS.md).
        if (H5Aread(attr.id(), memType.id(), &value) < 0 || !value)
            return std::nullopt;
        std::string result(value);
        H5free_memory(value);
        return result;
    }
    const auto size = H5Tget_size(type.id());
    if (size == 0 || size > kMaxFixedStringBytes)
        return std::nullopt;
    std::string buffer(size, '\0');
    H5Handle memType(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memType.id(), size);
    // Null-padded, not null-terminated: a string filling its whole fixed size ("csr_matrix" in
    // 10 bytes, as numpy.bytes_ writes it) must not lose its last character to a terminator.
    H5Tset_strpad(memType.id(), H5T_STR_NULLPAD);
    if (H5Aread(attr.id(), memType.id(), buffer.data()) < 0)
        return std::nullopt;
    buffer.resize(buffer.find('\0') == std::string::npos ? buffer.size() : buffer.find('\0'));
    return buffer;
}

std::optional<std::vector<std::int64_t>> readIntArrayAttribute(hid_t object, const char *name)
{
    if (H5Aexists(object, name) <= 0)
        return std::nullopt;
    H5Handle attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
    H5Handle type(H5Aget_type(attr.id()), H5Tclose);
    if (!attr.isValid() || H5Tget_class(type.id()) != H5T_INTEGER)
        return std::nullopt;
    H5Handle space(H5Aget_space(attr.id()), H5Sclose);
    const auto count = H5Sget_simple_extent_npoints(space.id());
    if (count < 0 || count > kMaxAttributeValues)
        return std::nullopt;
    std::vector<std::int64_t> values(static_cast<std::size_t>(count));
    if (count > 0 && H5Aread(attr.id(), H5T_NATIVE_INT64, values.data()) < 0)
        return std::nullopt;
    return values;
}

std::optional<double> readDoubleAttribute(hid_t object, const char *name)
{
    if (H5Aexists(object, name) <= 0)
        return std::nullopt;
    H5Handle attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
    H5Handle type(H5Aget_type(attr.id()), H5Tclose);
    const auto typeClass = H5Tget_class(type.id());
    if (typeClass != H5T_FLOAT && typeClass != H5T_INTEGER)
        return std::nullopt;
    H5Handle space(H5Aget_space(attr.id()), H5Sclose);
    if (H5Sget_simple_extent_npoints(space.id()) != 1)
        return std::nullopt; // one number, or it is not this attribute
    double value = 0;
    if (H5Aread(attr.id(), H5T_NATIVE_DOUBLE, &value) < 0)
        return std::nullopt;
    return value;
}

void writeDoubleAttribute(hid_t object, const char *name, double value)
{
    H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    H5Handle attr(H5Acreate2(object, name, H5T_IEEE_F64LE, space.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!attr.isValid() || H5Awrite(attr.id(), H5T_NATIVE_DOUBLE, &value) < 0)
        throw IoError(std::string("cannot write attribute ") + name);
}

void writeStringAttribute(hid_t object, const char *name, const std::string &value)
{
    H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.id(), H5T_VARIABLE);
    H5Tset_cset(type.id(), H5T_CSET_UTF8);
    H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    H5Handle attr(H5Acreate2(object, name, type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    const char *data = value.c_str();
    if (!attr.isValid() || H5Awrite(attr.id(), type.id(), &data) < 0)
        throw IoError(std::string("cannot write attribute ") + name);
}

void writeIntArrayAttribute(hid_t object, const char *name, const std::vector<std::int64_t> &values)
{
    const hsize_t count = values.size();
    // An empty array (the shape of a 0-d tensor) gets a null dataspace, as h5py writes it.
    H5Handle space(count == 0 ? H5Screate(H5S_NULL) : H5Screate_simple(1, &count, nullptr), H5Sclose);
    H5Handle attr(H5Acreate2(object, name, H5T_STD_I64LE, space.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!attr.isValid() || (count > 0 && H5Awrite(attr.id(), H5T_NATIVE_INT64, values.data()) < 0))
        throw IoError(std::string("cannot write attribute ") + name);
}

void writeEncoding(hid_t object, const std::string &type, const std::string &version)
{
    writeStringAttribute(object, "encoding-type", type);
    writeStringAttribute(object, "encoding-version", version);
}

} // namespace sparsity::core
