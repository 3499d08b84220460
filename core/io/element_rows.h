#pragma once
// Rows of an element of any layout, kept in its layout: a window of rows of a table too large to
// load whole, which the desktop app's Optimizer panel steps (docs/GUI.md, "Optimizer panel").
#include "core/io/h5_handle.h"
#include "core/tensor/row_range.h"
#include "core/tensor/tensor.h"
#include "core/util/validation_report.h"

#include <string>

namespace sparsity::core {

// Rows `rows` of the element at `path`, as sliceRows (core/tensor/slice_rows.h) gives them of the
// whole element: by hyperslab where readableByRows says so (dense, csr and masked_tensors of them
// with a mask of their layout), a row_sparse element's through RowSparseRowReader, any other
// (coo, csc, other masked_tensors) read whole and sliced. What a hyperslab read leaves unread is
// not checked. Throws InputError naming the element for rows outside its own.
Tensor readElementRows(const H5File &file, const std::string &path, RowRange rows, ValidationReport *report = nullptr);

} // namespace sparsity::core
