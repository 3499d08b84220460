#include "core/io/raw_values.h"

#include "core/io/h5_handle.h"
#include "core/io/positioned_io.h"
#include "core/parallel/first_exception.h"
#include "core/util/errors.h"

#include <algorithm>
#include <omp.h>

namespace sparsity::core {

std::optional<RawValues> rawValuesOf(hid_t dataset)
{
    const H5Handle dcpl(H5Dget_create_plist(dataset), H5Pclose);
    if (!dcpl.isValid() || H5Pget_layout(dcpl.id()) != H5D_CONTIGUOUS || H5Pget_nfilters(dcpl.id()) != 0
        || H5Pget_external_count(dcpl.id()) != 0)
        return std::nullopt;
    const H5Handle type(H5Dget_type(dataset), H5Tclose);
    std::optional<DType> dtype;
    if (H5Tequal(type.id(), H5T_NATIVE_FLOAT) > 0)
        dtype = DType::Float32;
    else if (H5Tequal(type.id(), H5T_NATIVE_DOUBLE) > 0)
        dtype = DType::Float64;
    if (!dtype)
        return std::nullopt;
    const haddr_t offset = H5Dget_offset(dataset); // HADDR_UNDEF: storage not allocated (never written)
    const hsize_t bytes = H5Dget_storage_size(dataset);
    if (offset == HADDR_UNDEF || bytes == 0)
        return std::nullopt;
    const auto fd = plainFileDescriptor(dataset);
    if (!fd)
        return std::nullopt;
    return RawValues{*fd, static_cast<std::int64_t>(offset), static_cast<std::int64_t>(bytes), *dtype};
}

std::optional<int> plainFileDescriptor(hid_t object)
{
    const H5Handle file(H5Iget_file_id(object), H5Fclose);
    const H5Handle fapl(file.isValid() ? H5Fget_access_plist(file.id()) : H5I_INVALID_HID, H5Pclose);
    if (!fapl.isValid() || H5Pget_driver(fapl.id()) != H5FD_SEC2)
        return std::nullopt;
    void *handle = nullptr;
    if (H5Fget_vfd_handle(file.id(), fapl.id(), &handle) < 0 || handle == nullptr)
        return std::nullopt;
    return *static_cast<int *>(handle);
}

void readRawValues(const RawValues &raw, std::int64_t first, std::int64_t count, void *into, const std::string &where)
{
    if (first < 0 || count < 0 || first + count > raw.bytes)
        throw InternalError("readRawValues: bytes within the dataset's storage expected");
    constexpr std::int64_t kPiece = std::int64_t{1} << 20;
    const auto pieces = (count + kPiece - 1) / kPiece;
    auto *out = static_cast<char *>(into);
    FirstException failure;
#pragma omp parallel for schedule(dynamic, 1) if (pieces > 1 && !omp_in_parallel())
    for (std::int64_t p = 0; p < pieces; ++p)
        failure.guard([&] {
            if (const auto problem =
                    readAtOffset(raw.fd, raw.offset + first + p * kPiece, out + p * kPiece, std::min(kPiece, count - p * kPiece),
                                 "the file ends before them (truncated while read?)"))
                throw IoError(where + ": cannot read values: " + *problem);
        });
    failure.rethrow();
}

} // namespace sparsity::core
