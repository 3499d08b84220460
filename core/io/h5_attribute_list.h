#pragma once
// Every attribute of one HDF5 object as text, for browsing (the GUI's Attributes dock, as
// HDFView and h5web show them). Nothing is refused: an attribute of a type with no plain-text
// form (compound, reference, opaque, ...) is listed with its class name and "(not shown)".
// Values are read with native memory types; long arrays and strings are abbreviated.
#include "core/io/h5_handle.h"

#include <string>
#include <vector>

namespace sparsity::core {

struct AttributeText {
    std::string name;
    // "string", "int64 [3]", "float64", "bool", "uint8 [2 × 3]", "compound".
    std::string type;
    // Numbers and strings as text; arrays as "1, 2, 3" or "1, 2, 3, … (1000 values)";
    // "(empty)" for a null dataspace; "(not shown)" for a type with no text form or a value
    // that could not be read.
    std::string value;
};

// The attributes of `object` in name order. An attribute that cannot be opened or read is
// still listed (value "(not shown)"). Throws IoError naming `where` when the object's
// attribute table itself cannot be walked (a corrupt header).
std::vector<AttributeText> listAttributes(hid_t object, const std::string &where);
// Those of the object at `objectPath` ("/": the root group). Throws InputError when there is
// no such object.
std::vector<AttributeText> listAttributes(const H5File &file, const std::string &objectPath);

} // namespace sparsity::core
