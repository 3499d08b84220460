#pragma once
// What the HDF5 fuzz targets do with a file once it is open: what `sparsity inspect --count`
// and `sparsity convert` do. Catalog every element (listElements), count its nonzeros, read it
// with its encoding (readTensor, which validates every sparse layout's invariants) and convert
// it to each other layout its rank allows. The product's refusals (core::Error) are caught;
// anything else -- a crash, a sanitizer report, an uncaught exception (std::bad_alloc from an
// absurd declared size included), a tensor whose shape is not the catalog's -- is a bug.
#include "core/io/h5_handle.h"

namespace sparsity::fuzz {

void runDecoders(const core::H5File &file);

} // namespace sparsity::fuzz
