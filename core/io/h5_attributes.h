#pragma once
// Attribute helpers. Strings are written as variable-length UTF-8 (what h5py and anndata
// write, and what h5py returns as `str`); both vlen and fixed-length strings are read.
#include "core/io/h5_handle.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sparsity::core {

// Whether `object` has a string attribute `name`, from its header alone: the value (of a
// variable-length string, in the global heap) is not read.
bool hasStringAttribute(hid_t object, const char *name);
// nullopt when absent, not a string, not scalar, or of an implausible size.
std::optional<std::string> readStringAttribute(hid_t object, const char *name);
// Integer attribute of any width, scalar or 1-d; nullopt when absent or not integer.
std::optional<std::vector<std::int64_t>> readIntArrayAttribute(hid_t object, const char *name);
std::optional<double> readDoubleAttribute(hid_t object, const char *name);
void writeStringAttribute(hid_t object, const char *name, const std::string &value);
void writeDoubleAttribute(hid_t object, const char *name, double value);
void writeIntArrayAttribute(hid_t object, const char *name, const std::vector<std::int64_t> &values);
// Tags an element with anndata's encoding-type / encoding-version.
void writeEncoding(hid_t object, const std::string &type, const std::string &version);

} // namespace sparsity::core
