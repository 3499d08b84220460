#pragma once
// What `inspect --count` counts of an element: its nonzero values, or a masked one's specified
// elements, read a chunk of rows at a time where its layout reads by rows.
#include "core/io/h5_catalog.h"
#include "core/io/h5_handle.h"
#include "core/io/h5_reader.h"

#include <cstdint>

namespace sparsity::core {

// Number of nonzero (unmasked) or specified (masked) elements, read in row chunks so memory
// stays bounded. With a `share`, this rank's part of it: its range of rows, or of allocated
// chunks (sparse and 0-d elements, and masked ones not read by rows, are counted by rank 0). A
// masked_tensor is read by rows where its layout is (elementReadableByRows: of dense, csr,
// row_sparse or rows-ascending coo data with a mask of its layout), else whole.
std::int64_t countNonzeros(const H5File &file, const ElementInfo &element, CountShare share = {});

} // namespace sparsity::core
