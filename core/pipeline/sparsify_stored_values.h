#pragma once
// `sparsify --method threshold` of a csr or csc element written in its own layout, computed on
// what the element stores, not on its dense form. A threshold decides each value alone, so the
// result keeps the input's pattern less what it prunes and what is zero: the stored values
// (read whole, I7 repaired as every whole read repairs it) are thresholded and tallied in one
// pass, the unstored elements, all zeros, are tallied as one value counted many times, and the
// entries left are written. The file and the report are the dense computation's, bit for bit:
// its histogram range takes in 0 when an element is unstored, and its counts take the zeros'.
// For a 1%-filled matrix that is a hundredth of the work the block pipeline does.
#include "core/io/h5_catalog.h"
#include "core/pipeline/sparsify_file.h"

namespace sparsity::core {

// Whether sparsifyStoredValues can do `e`: threshold of an unmasked csr or csc element of
// float32 or float64 values into its own layout, no state saved, its entries and the result's
// within `budgetBytes`.
bool storedValuesPathCan(const SparsifyRequest &request, const ElementInfo &e, std::int64_t budgetBytes);

SparsifiedElement sparsifyStoredValues(
    const SparsifyRequest &request, const H5File &input, const ElementInfo &e, H5File &output, ValidationReport &report);

} // namespace sparsity::core
