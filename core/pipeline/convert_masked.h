#pragma once
// `convert` of a masked_tensor read by rows (dense, csr or row_sparse data with a mask of its
// layout), a block of rows at a time, into dense, csr, coo or row_sparse: the file holds what
// converting the whole element (toLayout) writes, a masked_tensor of that layout. Into dense,
// each block's values (an unspecified one 0) and mask are written as two row streams; into a
// sparse layout, whose conversion keeps each row to itself, a first pass counts what each row's
// conversion stores (its specified elements; row_sparse: every value of a row holding one), and
// a second writes each block's conversion, its data and its mask (the same positions, bool
// values) by two SparseRowStreamWriters of the same counts. Across ranks each converts its own
// rows. Into csc (one process) each block's conversion is written in column panels, data and
// mask alike (core/pipeline/csc_of_row_blocks.h); across ranks it goes whole.
#include "core/io/h5_catalog.h"
#include "core/pipeline/convert_file.h"

namespace sparsity::core {

// Whether convertMasked converts `e` (a masked_tensor) of `input` into `target`.
bool convertMaskedCan(const H5File &input, const ElementInfo &e, Layout target);

ConvertedElement convertMasked(const ConvertRequest &request,
                               const H5File &input,
                               const ElementInfo &e,
                               H5File &output,
                               ValidationReport &report,
                               std::int64_t budgetBytes);

} // namespace sparsity::core
