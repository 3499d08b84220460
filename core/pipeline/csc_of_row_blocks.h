#pragma once
// A 2-d element written as csc from blocks of its rows, each converted into a csc of those rows
// alone: what converting a csr, row_sparse, coo or masked element into csc writes, in bounded
// memory. A csc layout stores every row of a column before the next column, so a first pass
// counts each column's entries over every block; then the columns are taken in panels of as
// many as their entries fit a quarter of the output (64 MiB if more) within half the budget,
// and for each panel every block is converted again, its panel columns' entries appended to
// their runs (blocks in row order: each column's rows ascend, as in the whole conversion) and
// the panel written as one run. A column of more entries than a panel takes is a panel of its
// own, written a block's run at a time. A masked element's mask (the same pattern, bool values)
// is gathered and written beside its data.
//
// Across ranks the counting pass divides the blocks (each rank its contiguous share) and the
// counts are summed; the panels are dealt out in turn (panel i to rank i mod size), each rank
// reading every block for its own, and the writes are collective (docs/SCALING.md).
#include "core/io/h5_writer.h"
#include "core/pipeline/convert_file.h"
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/row_range.h"
#include "core/tensor/tensor.h"

#include <functional>
#include <span>
#include <string>

namespace sparsity::core {

// A block of rows converted into csc: its values and, of a masked element, each entry's mask
// value (empty otherwise); and what the block stores as read (Tensor::storedCount()). It holds
// the element's columns [firstColumn, firstColumn + values.shape[1]): all of them, or those of
// the panel it was asked for.
template <class T>
struct CscOfRows {
    CompressedTensor<T> values;
    Mask mask;
    std::int64_t storedRead = 0;
    std::int64_t firstColumn = 0;
};
// The csc of the block `rows`, of at least its `columns` (all of them when the counting pass
// asks): a source that can read a panel's columns alone (a box of a dense masked element)
// converts only those, another converts the block's whole rows.
template <class T>
using CscOfRowsSource = std::function<CscOfRows<T>(RowRange rows, RowRange columns)>;

// A block of rows as read (a csr, row_sparse, coo or masked tensor of those rows alone, values
// of type T), converted into csc as the whole element is (toLayout), its mask's values beside.
template <class T>
CscOfRows<T> cscOfRows(const Tensor &rows);

// Writes the element of `shape` at `path` of `output` (`masked`: a masked_tensor of csc data
// and mask) from `convert`'s csc of each of `blocks` (the rows in order, each once; a block is
// asked for once per panel, and once to count, of one rank). `counted`, if given, is called on
// every rank (collectively) once the counting pass has read every block: a reader's notes of
// the rows it read are gathered there, and the panels, which read every row on every rank,
// tell none. Returns what the blocks store as read (counted once) and the entries written.
// Throws InternalError when a block's entries differ from what the counting pass found, or
// when it lacks columns asked for.
// Collective.
template <class T>
ConvertedElement writeCscOfRowBlocks(H5File &output,
                                     const std::string &path,
                                     const Shape &shape,
                                     bool masked,
                                     std::span<const RowRange> blocks,
                                     const CscOfRowsSource<T> &convert,
                                     const WriteOptions &options,
                                     std::int64_t budgetBytes,
                                     const std::function<void()> &counted = {});

} // namespace sparsity::core
