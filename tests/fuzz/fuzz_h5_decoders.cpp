// libFuzzer target: the HDF5 decoders fed raw file images from memory.
//
// Each input is opened as an HDF5 file image (H5File::openImage: core driver, no disk) and
// goes through runDecoders (decoder_workload.h). Mutating raw bytes corrupts HDF5's own
// metadata, and libhdf5 1.10.8 has memory errors of its own on such files (an overflow while
// decoding a corrupted attribute message under H5Aexists, see docs/TESTING.md) that no check
// in our code can prevent. So this target is for runs by hand, and scripts/fuzz.sh (CI) runs
// fuzz_h5_structured, which only ever hands libhdf5 well-formed files.
#include "core/io/h5_handle.h"
#include "core/util/errors.h"
#include "tests/fuzz/decoder_workload.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace {

using namespace sparsity::core;

// libhdf5 1.10.8 itself cannot read a corrupted variable-length attribute safely: a flipped
// sequence length makes H5T__conv_vlen allocate what the file says (38 GB seen; abort under
// ASan), a flipped heap ID overruns a buffer in H5HG_read, a zeroed global heap block loops
// forever. The length and heap ID live in the raw attribute message, out of reach of any check
// before H5Aread, and the product must read such attributes (h5py and anndata write
// `encoding-type` as a variable-length string). So inputs holding one are skipped, and the
// seeds use fixed-length string attributes, which reach the same decoders. Only type metadata
// is read here, never an attribute's value.
herr_t flagVariableLengthAttribute(hid_t location, const char *name, const H5A_info_t *, void *found)
{
    const H5Handle attribute(H5Aopen(location, name, H5P_DEFAULT), H5Aclose);
    const H5Handle type(attribute.isValid() ? H5Aget_type(attribute.id()) : H5I_INVALID_HID, H5Tclose);
    if (!type.isValid() || H5Tis_variable_str(type.id()) != 0 || H5Tdetect_class(type.id(), H5T_VLEN) != 0)
        *static_cast<bool *>(found) = true; // unreadable metadata counts as suspect too
    return *static_cast<bool *>(found) ? 1 : 0;
}

herr_t scanObjectAttributes(hid_t file, const char *name, const H5O_info_t *, void *found)
{
    const H5Handle object(H5Oopen(file, name, H5P_DEFAULT), H5Oclose);
    if (!object.isValid())
        return 0; // the decoders report objects that cannot be opened
    hsize_t index = 0;
    H5Aiterate2(object.id(), H5_INDEX_NAME, H5_ITER_NATIVE, &index, flagVariableLengthAttribute, found);
    return *static_cast<bool *>(found) ? 1 : 0;
}

bool hasVariableLengthAttribute(const H5File &file)
{
    bool found = false;
    H5Ovisit2(file.id(), H5_INDEX_NAME, H5_ITER_NATIVE, scanObjectAttributes, &found, H5O_INFO_BASIC);
    return found;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    try {
        const H5File file = H5File::openImage(std::as_bytes(std::span(data, size)), "fuzz.h5");
        if (hasVariableLengthAttribute(file))
            return -1; // not added to the corpus; see hasVariableLengthAttribute()
        sparsity::fuzz::runDecoders(file);
    } catch (const Error &) {
        // Not HDF5, or truncated: refused at the open, as openRead refuses it.
    }
    return 0;
}
