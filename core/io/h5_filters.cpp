#include "core/io/h5_filters.h"

#include "core/io/h5_handle.h"

#include <algorithm>
#include <array>

namespace sparsity::core {
namespace {

#ifndef H5_HAVE_PARALLEL
// Filters registered with The HDF Group whose plugins Debian packages (bookworm) for its serial
// HDF5, for the hint of a message; others are named by id and stored name alone, as every one
// is under sparsity-mpi (Debian packages few plugins for its OpenMPI HDF5). Not lzf (32000):
// Debian 12's hdf5-plugin-lzf reads no chunk h5py compressed (docs/HDF5_ENCODINGS.md).
struct KnownFilter {
    H5Z_filter_t id;
    const char *debianPackage;
};
constexpr std::array kKnownFilters{
    KnownFilter{307, "hdf5-filter-plugin"},                // bzip2
    KnownFilter{32001, "hdf5-filter-plugin-blosc-serial"}, // blosc
    KnownFilter{32004, "hdf5-filter-plugin"},              // lz4
    KnownFilter{32013, "hdf5-filter-plugin-zfp-serial"},   // zfp
};
#endif

} // namespace

std::string unavailableFilter(hid_t dataset)
{
    H5Handle plist(H5Dget_create_plist(dataset), H5Pclose);
    if (plist.id() < 0)
        return {};
    const int filters = H5Pget_nfilters(plist.id());
    for (int i = 0; i < filters; ++i) {
        unsigned flags = 0;
        std::size_t values = 0;
        std::array<char, 256> name{};
        const H5Z_filter_t id =
            H5Pget_filter2(plist.id(), static_cast<unsigned>(i), &flags, &values, nullptr, name.size(), name.data(), nullptr);
        // H5Zfilter_avail loads the filter's plugin when no filter of that id is registered.
        if (id < 0 || H5Zfilter_avail(id) > 0)
            continue;
        const std::string described = "filter " + std::to_string(id);
        // The name the file stores: a corrupt one must not break the message's one line.
        std::string stored(name.data());
        std::replace_if(
            stored.begin(), stored.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }, '?');
        std::string details = stored.empty() ? std::string() : "\"" + stored + "\"";
#ifndef H5_HAVE_PARALLEL
        for (const auto &known : kKnownFilters)
            if (known.id == id)
                details += (details.empty() ? "" : "; ") + std::string("Debian: ") + known.debianPackage;
#endif
        return details.empty() ? described : described + " (" + details + ")";
    }
    return {};
}

IoError valuesUnreadable(hid_t dataset, const std::string &where)
{
    if (const auto filter = unavailableFilter(dataset); !filter.empty())
        return IoError(where + ": cannot read values: they are compressed with HDF5 " + filter
                       + ", which this HDF5 cannot load; install that filter's plugin, or set HDF5_PLUGIN_PATH to "
                         "the folder that holds it");
    return IoError(where + ": cannot read values (file truncated or corrupt)");
}

namespace {

bool datasetFiltered(hid_t dataset)
{
    H5Handle plist(H5Dget_create_plist(dataset), H5Pclose);
    return plist.id() >= 0 && H5Pget_nfilters(plist.id()) > 0;
}

bool objectFiltered(hid_t object)
{
    if (H5Iget_type(object) == H5I_DATASET)
        return datasetFiltered(object);
    if (H5Iget_type(object) != H5I_GROUP)
        return false;
    bool any = false;
    const auto visit = [](hid_t group, const char *name, const H5L_info_t *, void *found) -> herr_t {
        H5Handle child(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
        if (child.id() >= 0 && H5Iget_type(child.id()) == H5I_DATASET && datasetFiltered(child.id()))
            *static_cast<bool *>(found) = true;
        return *static_cast<bool *>(found) ? 1 : 0; // 1 stops the walk
    };
    H5Literate(object, H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, visit, &any);
    return any;
}

} // namespace

bool storedThroughFilters(const H5File &file, const std::string &path) { return objectFiltered(openObject(file, path).id()); }

} // namespace sparsity::core
