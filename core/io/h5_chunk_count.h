#pragma once
// Counting the nonzeros of a dense dataset without reading what was never written. HDF5
// allocates chunks as they are written; an element of an unallocated chunk reads as the fill
// value. A file may declare a 2^31 x 2^31 dataset and write nothing: reading it row by row
// would take forever, while its count is known at once from the fill value.
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"

#include <cstdint>
#include <optional>

namespace sparsity::core {

// The count from the allocated storage alone: a dataset with no storage holds only its fill
// value; a chunked one with at most a few thousand allocated chunks is read chunk by chunk and
// the rest counted as fill. nullopt when neither applies (read it in full instead). With a
// `share`, this rank's part: chunk i is read by rank i % size, the fill counted by rank 0.
std::optional<std::int64_t> countNonzerosByChunk(const H5File &file, const ElementInfo &element, CountShare share = {});

} // namespace sparsity::core
