#pragma once
// Rows of a tensor of any layout, kept in its layout: the window of rows the desktop app steps
// (README.md, "Optimizer panel"), and a test's expected rows of a read by hyperslab.
#include "core/tensor/row_range.h"
#include "core/tensor/tensor.h"

namespace sparsity::core {

// Rows `rows` along dim 0, in the tensor's layout, numbered from rows.begin: what the tensor
// stores in those rows, in its stored order, with the mask of those stored values (masked). A COO
// tensor keeps its duplicates and their order, so coalescing the rows sums each element as
// coalescing the whole does; densifying the rows gives the whole's densified rows, bit for bit.
// Throws InputError for a 0-d tensor or rows outside [0, shape[0]].
Tensor sliceRows(const Tensor &tensor, RowRange rows);

} // namespace sparsity::core
