#pragma once
// Counting the nonzeros of a dense dataset without reading what was never written. HDF5
// allocates chunks as they are written; an element of an unallocated chunk reads as the fill
// value. A file may declare a 2^31 x 2^31 dataset and write nothing: reading it row by row
// would take forever, while its count is known at once from the fill value.
#include "core/io/h5_catalog.h"

#include <cstdint>
#include <optional>

namespace sparsity::core {

// The count from the allocated storage alone: a dataset with no storage holds only its fill
// value; a chunked one with at most a few thousand allocated chunks is read chunk by chunk and
// the rest counted as fill. nullopt when neither applies (read it in full instead).
std::optional<std::int64_t> countNonzerosByChunk(const H5File &file, const ElementInfo &element);

} // namespace sparsity::core
