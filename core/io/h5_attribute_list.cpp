#include "core/io/h5_attribute_list.h"

#include "core/io/h5_types.h"
#include "core/util/errors.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <type_traits>

namespace sparsity::core {
namespace {

// An array up to this many values is shown whole; a longer one by its first few and its count.
constexpr std::size_t kWholeArrayValues = 10;
constexpr std::size_t kLeadingValues = 3;
// Past these an attribute is not read at all: the values could not be shown, and such sizes
// in an attribute header come from corrupt files more often than from writers.
constexpr hssize_t kMaxValuesRead = hssize_t{1} << 20;
constexpr std::size_t kMaxBytesRead = std::size_t{64} << 20;
// A longer string (a JSON document kept as an attribute) is cut to this many bytes.
constexpr std::size_t kMaxShownStringBytes = 1000;
// One variable-length string's entry in the attribute (length, heap collection address,
// index); a larger entry means a corrupt header, and reading the heap it points into can
// crash libhdf5 1.10 (docs/KNOWN_LIMITS.md).
constexpr hsize_t kMaxVlenEntryBytes = 32;

const char *const kNotShown = "(not shown)";

using Values = std::optional<std::vector<std::string>>;

std::size_t shownCount(std::size_t total) { return total <= kWholeArrayValues ? total : kLeadingValues; }

std::string className(H5T_class_t typeClass)
{
    switch (typeClass) {
    case H5T_INTEGER:
        return "integer";
    case H5T_FLOAT:
        return "float";
    case H5T_TIME:
        return "time";
    case H5T_STRING:
        return "string";
    case H5T_BITFIELD:
        return "bitfield";
    case H5T_OPAQUE:
        return "opaque";
    case H5T_COMPOUND:
        return "compound";
    case H5T_REFERENCE:
        return "reference";
    case H5T_ENUM:
        return "enum";
    case H5T_VLEN:
        return "vlen";
    case H5T_ARRAY:
        return "array";
    default:
        return "unknown type";
    }
}

// numpy's names ("int64", "float32"): what h5py users know the types by.
std::string typeName(hid_t type)
{
    const auto typeClass = H5Tget_class(type);
    const auto bits = std::to_string(H5Tget_size(type) * 8);
    switch (typeClass) {
    case H5T_INTEGER:
        return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + bits;
    case H5T_FLOAT:
        return "float" + bits;
    case H5T_ENUM:
        return isH5Bool(type) ? "bool" : "enum";
    default:
        return className(typeClass);
    }
}

// "" for a scalar, " [3]", " [2 × 3]".
std::string shapeSuffix(hid_t space)
{
    const int rank = H5Sget_simple_extent_ndims(space);
    if (rank <= 0)
        return {};
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    if (H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0)
        return {};
    std::string text = " [";
    for (std::size_t d = 0; d < dims.size(); ++d)
        text += (d > 0 ? " × " : "") + std::to_string(dims[d]);
    return text + "]";
}

// The shortest text that reads back as the same value: 0.1f is "0.1", not "0.100000001".
template <class T>
std::string numberText(T value)
{
    if constexpr (std::is_floating_point_v<T>) {
        char buffer[64];
        const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
        return std::string(buffer, end);
    } else {
        return std::to_string(value);
    }
}

template <class T>
Values readNumbers(hid_t attr, hid_t memType, std::size_t count)
{
    std::vector<T> values(count);
    if (H5Aread(attr, memType, values.data()) < 0)
        return std::nullopt;
    std::vector<std::string> text;
    for (std::size_t i = 0; i < shownCount(count); ++i)
        text.push_back(numberText(values[i]));
    return text;
}

// Cut on a UTF-8 character boundary, saying how long the whole was.
std::string shownString(std::string text)
{
    if (text.size() <= kMaxShownStringBytes)
        return text;
    const auto total = text.size();
    std::size_t cut = kMaxShownStringBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
    text.resize(cut);
    return text + "… (" + std::to_string(total) + " bytes)";
}

Values readStrings(hid_t attr, hid_t type, std::size_t count)
{
    H5Handle memType(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_cset(memType.id(), H5Tget_cset(type) == H5T_CSET_UTF8 ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
    std::vector<std::string> text;
    if (H5Tis_variable_str(type) > 0) {
        if (H5Aget_storage_size(attr) > kMaxVlenEntryBytes * count)
            return std::nullopt;
        H5Tset_size(memType.id(), H5T_VARIABLE);
        std::vector<char *> values(count, nullptr);
        if (H5Aread(attr, memType.id(), values.data()) < 0)
            return std::nullopt;
        for (std::size_t i = 0; i < shownCount(count); ++i)
            text.push_back(shownString(values[i] ? values[i] : ""));
        for (char *value : values)
            H5free_memory(value);
        return text;
    }
    const std::size_t size = H5Tget_size(type);
    if (size == 0 || size > kMaxBytesRead / count)
        return std::nullopt;
    H5Tset_size(memType.id(), size);
    // Null-padded, not null-terminated: a string filling its whole size keeps its last byte.
    H5Tset_strpad(memType.id(), H5T_STR_NULLPAD);
    std::string buffer(size * count, '\0');
    if (H5Aread(attr, memType.id(), buffer.data()) < 0)
        return std::nullopt;
    for (std::size_t i = 0; i < shownCount(count); ++i) {
        std::string value = buffer.substr(i * size, size);
        value.resize(std::min(value.find('\0'), value.size()));
        text.push_back(shownString(std::move(value)));
    }
    return text;
}

// Each value by its member name; h5py's bool enum as true/false.
Values readEnumNames(hid_t attr, hid_t type, std::size_t count)
{
    H5Handle memType(H5Tget_native_type(type, H5T_DIR_ASCEND), H5Tclose);
    const std::size_t size = memType.isValid() ? H5Tget_size(memType.id()) : 0;
    if (size == 0 || size > kMaxBytesRead / count)
        return std::nullopt;
    std::vector<unsigned char> buffer(size * count);
    if (H5Aread(attr, memType.id(), buffer.data()) < 0)
        return std::nullopt;
    const bool isBool = isH5Bool(type);
    std::vector<std::string> text;
    for (std::size_t i = 0; i < shownCount(count); ++i) {
        char name[256] = {};
        if (H5Tenum_nameof(memType.id(), buffer.data() + i * size, name, sizeof name) < 0)
            text.emplace_back("(no member)");
        else if (isBool)
            text.emplace_back(std::string(name) == "TRUE" ? "true" : "false");
        else
            text.emplace_back(name);
    }
    return text;
}

// The first shownCount(count) values as text; nullopt for a type with no text form.
Values readValues(hid_t attr, hid_t type, std::size_t count)
{
    switch (H5Tget_class(type)) {
    case H5T_INTEGER:
        return H5Tget_sign(type) == H5T_SGN_NONE ? readNumbers<std::uint64_t>(attr, H5T_NATIVE_UINT64, count)
                                                 : readNumbers<std::int64_t>(attr, H5T_NATIVE_INT64, count);
    case H5T_FLOAT:
        // float32 (and float16) read as float, so they print as short as they were written.
        return H5Tget_size(type) <= sizeof(float) ? readNumbers<float>(attr, H5T_NATIVE_FLOAT, count)
                                                  : readNumbers<double>(attr, H5T_NATIVE_DOUBLE, count);
    case H5T_STRING:
        return readStrings(attr, type, count);
    case H5T_ENUM:
        return readEnumNames(attr, type, count);
    default:
        return std::nullopt; // compound, reference, opaque, bitfield, vlen, array, time
    }
}

// "1, 2, 3" or "1, 2, 3, … (1000 values)"; strings of an array quoted (one may hold ", ").
std::string joinValues(const std::vector<std::string> &shown, std::size_t total, bool quote)
{
    std::string text;
    for (std::size_t i = 0; i < shown.size(); ++i) {
        if (i > 0)
            text += ", ";
        text += quote ? '"' + shown[i] + '"' : shown[i];
    }
    if (shown.size() < total)
        text += ", … (" + std::to_string(total) + " values)";
    return text;
}

AttributeText describe(hid_t object, const std::string &name)
{
    AttributeText row{name, "?", kNotShown};
    H5Handle attr(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose);
    if (!attr.isValid())
        return row;
    H5Handle type(H5Aget_type(attr.id()), H5Tclose);
    H5Handle space(H5Aget_space(attr.id()), H5Sclose);
    if (!type.isValid() || !space.isValid())
        return row;
    row.type = typeName(type.id()) + shapeSuffix(space.id());
    const hssize_t count = H5Sget_simple_extent_npoints(space.id());
    if (H5Sget_simple_extent_type(space.id()) == H5S_NULL || count == 0) {
        row.value = "(empty)";
        return row;
    }
    if (count < 0)
        return row;
    if (count > kMaxValuesRead) {
        row.value = std::string("(").append(std::to_string(count)).append(" values, not shown)");
        return row;
    }
    const auto total = static_cast<std::size_t>(count);
    if (const auto values = readValues(attr.id(), type.id(), total))
        row.value = joinValues(*values, total, total > 1 && H5Tget_class(type.id()) == H5T_STRING);
    return row;
}

herr_t collectName(hid_t, const char *name, const H5A_info_t *, void *names) noexcept
{
    try {
        static_cast<std::vector<std::string> *>(names)->emplace_back(name);
        return 0;
    } catch (...) {
        return -1; // stops the iteration; H5Aiterate2 then fails
    }
}

} // namespace

std::vector<AttributeText> listAttributes(hid_t object, const std::string &where)
{
    silenceHdf5Errors(); // a failed read below must not print HDF5's error stack
    std::vector<std::string> names;
    hsize_t next = 0;
    if (H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, &next, collectName, &names) < 0)
        throw IoError(where + ": cannot list attributes (file corrupt?)");
    std::vector<AttributeText> rows;
    rows.reserve(names.size());
    for (const auto &name : names)
        rows.push_back(describe(object, name));
    return rows;
}

std::vector<AttributeText> listAttributes(const H5File &file, const std::string &objectPath)
{
    const auto object = openObject(file, objectPath);
    return listAttributes(object.id(), file.where(objectPath));
}

} // namespace sparsity::core
