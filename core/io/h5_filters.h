#pragma once
// Why a read of a dataset's values failed. A chunked dataset's values pass through its filter
// pipeline; a filter HDF5 does not build in (blosc, lz4, zfp, lzf, bzip2...) is applied by a
// plugin HDF5 loads on first use (from HDF5_PLUGIN_PATH, else its default folder). Without the
// plugin the read fails the way a corrupt file's does, so the error says which filter is
// missing and where its plugin comes from (docs/HDF5_ENCODINGS.md, "Compression").
#include "core/io/h5_handle.h"
#include "core/util/errors.h"

#include <hdf5.h>
#include <string>

namespace sparsity::core {

// The first filter of `dataset`'s pipeline that this HDF5 cannot apply, described for a
// message: `filter 32001 ("blosc"; Debian: hdf5-filter-plugin-blosc-serial)`. Empty when every
// filter is available.
std::string unavailableFilter(hid_t dataset);

// The error of a failed read of `dataset`'s values, `where` naming the file and dataset: a
// filter whose plugin is missing, else a file truncated or corrupt.
IoError valuesUnreadable(hid_t dataset, const std::string &where);

// Whether the object at `path` stores values through a filter pipeline (compressed): it, a
// dataset, or one of its datasets, a group's (a sparse element's parts). Each read of them runs
// the filters again.
bool storedThroughFilters(const H5File &file, const std::string &path);

} // namespace sparsity::core
