#pragma once
// `sparsify --method threshold` of a sparse element (csr, csc, coo, row_sparse) written in a
// sparse layout, computed on what the element stores, not on its dense form. A threshold
// decides each value alone, so the result is the input's stored elements less what it prunes
// and what is zero: the element is read whole (checked and repaired as every whole read is),
// its stored values are thresholded and tallied in one pass, the unstored elements, all zeros,
// are tallied as one value counted many times, and the elements left are written. A csr or csc
// element into its own layout is done where it lies; any other first becomes one entry per
// element (duplicates summed in stored order, as densifying sums them) and is converted after.
// The file and the report are the dense computation's, bit for bit: its histogram range takes
// in 0 when an element is unstored, and its counts take the zeros'. For a 1%-filled matrix that
// is a hundredth of the work the block pipeline does.
#include "core/io/h5_catalog.h"
#include "core/pipeline/sparsify_file.h"

namespace sparsity::core {

// Whether sparsifyStoredValues can do `e`: threshold of an unmasked sparse element into a
// sparse layout, no state saved, what it stores and the result within `budgetBytes`.
bool storedValuesPathCan(const SparsifyRequest &request, const ElementInfo &e, std::int64_t budgetBytes);

SparsifiedElement sparsifyStoredValues(
    const SparsifyRequest &request, const H5File &input, const ElementInfo &e, H5File &output, ValidationReport &report);

} // namespace sparsity::core
