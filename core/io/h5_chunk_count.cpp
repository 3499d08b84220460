#include "core/io/h5_chunk_count.h"

#include "core/io/h5_filters.h"
#include "core/io/h5_types.h"
#include "core/util/errors.h"
#include "core/util/memory_bound.h"

#include <algorithm>
#include <vector>

namespace sparsity::core {
namespace {

// H5Dget_chunk_info walks the chunk index from the start on every call (HDF5 1.10), so
// visiting n chunks costs n^2 index steps: beyond this many, reading in full is faster.
constexpr hsize_t kMaxChunksVisited = 4096;

bool fillValueIsNonzero(hid_t dcpl, hid_t fileType)
{
    H5D_fill_value_t defined = H5D_FILL_VALUE_UNDEFINED;
    if (H5Pfill_value_defined(dcpl, &defined) < 0 || defined != H5D_FILL_VALUE_USER_DEFINED)
        return false; // the library's default fill value is zero
    double value = 0.0;
    if (H5Pget_fill_value(dcpl, H5T_NATIVE_DOUBLE, &value) >= 0)
        return value != 0.0;
    // A type HDF5 cannot convert to double (h5py's bool enum): any nonzero byte.
    std::vector<unsigned char> bytes(std::max<std::size_t>(1, H5Tget_size(fileType)));
    if (H5Pget_fill_value(dcpl, fileType, bytes.data()) < 0)
        return false;
    return std::any_of(bytes.begin(), bytes.end(), [](unsigned char b) { return b != 0; });
}

} // namespace

std::optional<std::int64_t> countNonzerosByChunk(const H5File &file, const ElementInfo &element, CountShare share)
{
    if (element.shape.empty() || element.layout != Layout::Dense || element.masked)
        return std::nullopt;
    const std::string where = file.where(element.path);
    H5Handle dataset = openDataset(file, element.path);
    H5Handle type = datasetType(dataset.id());
    H5Handle dcpl(H5Dget_create_plist(dataset.id()), H5Pclose);
    if (!dcpl.isValid())
        return std::nullopt;
    const std::int64_t total = numel(element.shape);
    const bool fillNonzero = fillValueIsNonzero(dcpl.id(), type.id());
    // No storage: nothing was written. (H5Dget_space_status fails on a dataset whose declared
    // size overflows 64 bits of bytes, so the storage size decides.)
    const std::int64_t fill = fillNonzero && share.rank == 0 ? total : 0; // counted once
    if (H5Pget_layout(dcpl.id()) != H5D_COMPACT && H5Dget_storage_size(dataset.id()) == 0)
        return fill;
    if (H5Pget_layout(dcpl.id()) != H5D_CHUNKED)
        return std::nullopt;
    H5Handle wholeSpace = datasetSpace(dataset.id());
    hsize_t chunks = 0;
    if (H5Dget_num_chunks(dataset.id(), wholeSpace.id(), &chunks) < 0 || chunks > kMaxChunksVisited)
        return std::nullopt;
    const int rank = static_cast<int>(element.shape.size());
    std::vector<hsize_t> chunkDims(element.shape.size());
    if (H5Pget_chunk(dcpl.id(), rank, chunkDims.data()) != rank)
        return std::nullopt;

    const bool isBool = element.dtype == DType::Bool;
    H5Handle boolType = isBool ? makeBoolType() : H5Handle();
    const hid_t memoryType = isBool ? boolType.id() : H5T_NATIVE_DOUBLE;
    std::int64_t count = 0, written = 0;
    std::vector<hsize_t> offset(element.shape.size()), extent(element.shape.size());
    for (hsize_t index = static_cast<hsize_t>(share.rank); index < chunks; index += static_cast<hsize_t>(share.size)) {
        unsigned filterMask = 0;
        haddr_t address = 0;
        hsize_t size = 0;
        if (H5Dget_chunk_info(dataset.id(), wholeSpace.id(), index, offset.data(), &filterMask, &address, &size) < 0)
            throw IoError(where + ": cannot read the chunk index (file truncated or corrupt)");
        std::int64_t elements = 1;
        for (std::size_t d = 0; d < extent.size(); ++d) {
            // An edge chunk reaches past the extent; only its part inside counts.
            const auto extentD = static_cast<hsize_t>(element.shape[d]);
            extent[d] = offset[d] >= extentD ? 0 : std::min(chunkDims[d], extentD - offset[d]);
            elements *= static_cast<std::int64_t>(extent[d]);
        }
        if (elements == 0)
            continue;
        requireAllocatable(elements, sizeof(double), where, "a chunk of");
        H5Handle fileSpace = datasetSpace(dataset.id());
        H5Sselect_hyperslab(fileSpace.id(), H5S_SELECT_SET, offset.data(), nullptr, extent.data(), nullptr);
        H5Handle memorySpace(H5Screate_simple(rank, extent.data(), nullptr), H5Sclose);
        herr_t read = 0;
        if (isBool) {
            std::vector<std::uint8_t> values(static_cast<std::size_t>(elements));
            read = H5Dread(dataset.id(), memoryType, memorySpace.id(), fileSpace.id(), H5P_DEFAULT, values.data());
            count += std::count_if(values.begin(), values.end(), [](std::uint8_t v) { return v != 0; });
        } else {
            std::vector<double> values(static_cast<std::size_t>(elements));
            read = H5Dread(dataset.id(), memoryType, memorySpace.id(), fileSpace.id(), H5P_DEFAULT, values.data());
            count += std::count_if(values.begin(), values.end(), [](double v) { return v != 0.0; });
        }
        if (read < 0)
            throw valuesUnreadable(dataset.id(), where);
        written += elements;
    }
    // The elements no chunk holds read as the fill value.
    return count + (fillNonzero ? fill - written : 0);
}

} // namespace sparsity::core
