// libFuzzer target: the HDF5 decoders fed file images from memory.
//
// Each input is opened as an HDF5 file image (H5File::openImage: core driver, no disk) and
// goes through what `sparsity inspect --count` and `sparsity convert` do with a file: catalog
// every element (listElements), count its nonzeros, read it with its encoding (readTensor,
// which validates every sparse layout's invariants) and convert it to each other layout its
// rank allows. The product's own refusals (core::Error: InputError, IoError) are the expected
// outcome for most inputs. A crash, a sanitizer report, a hang (-timeout), an uncaught
// exception -- std::bad_alloc from an absurd declared size included -- is a bug.
#include "core/io/h5_catalog.h"
#include "core/io/h5_handle.h"
#include "core/io/h5_reader.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

namespace {

using namespace sparsity::core;

constexpr std::array kLayouts{Layout::Dense, Layout::Coo, Layout::Csr, Layout::Csc, Layout::RowSparse};

// Converting to another layout allocates for the declared shape (a dense result holds every
// element, CSR one index pointer per row): a file may legitimately declare a sparse tensor
// too large to densify, and the user asking for that conversion is not a decoding defect.
// Conversions of larger tensors are skipped; decoding them is still fuzzed.
constexpr std::int64_t kConvertElementBudget = std::int64_t{1} << 22;

void requireSameShape(const ElementInfo &element, const Tensor &tensor, const char *what)
{
    if (tensor.shape() != element.shape) {
        std::fprintf(stderr, "%s: %s has shape %s, but the catalog said %s\n", element.path.c_str(), what,
                     shapeToString(tensor.shape()).c_str(), shapeToString(element.shape).c_str());
        std::abort();
    }
}

void convertToEveryLayout(const ElementInfo &element, const Tensor &tensor)
{
    if (numel(tensor.shape()) > kConvertElementBudget)
        return;
    for (const Layout target : kLayouts) {
        if (target == tensor.layout() || !layoutAcceptsRank(target, static_cast<int>(tensor.shape().size())))
            continue;
        requireSameShape(element, toLayout(tensor, target), std::string(layoutName(target)).c_str());
    }
}

void decodeElement(const H5File &file, const ElementInfo &element)
{
    countNonzeros(file, element); // inspect --count
    ValidationReport report;
    const Tensor tensor = readTensor(file, element.path, &report);
    requireSameShape(element, tensor, "the tensor read");
    convertToEveryLayout(element, tensor);
}

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
        const auto elements = listElements(file);
        // Every element on its own (convert stops at the first refusal; going on reaches the
        // decoders of the elements after it, too).
        for (const auto &element : elements) {
            try {
                decodeElement(file, element);
            } catch (const Error &) {
                // A refusal naming the file, the dataset and the violated condition.
            }
        }
    } catch (const Error &) {
        // The file as a whole refused: not HDF5, truncated, unreadable catalog.
    }
    return 0;
}
