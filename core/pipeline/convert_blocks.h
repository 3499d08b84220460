#pragma once
// `convert` of a dense dataset, whatever its size: read a block of rows at a time (hyperslabs
// straight into one reused buffer) and written dense, or csr, coo or row_sparse sized by a
// first pass that counts each row's nonzeros (core/io/h5_writer.h's SparseRowStreamWriter), or
// csc sized by each column's count and written in column panels (core/pipeline/csc_panels.h).
// A csr or row_sparse element is read the same way: into dense its rows densified a block at a
// time (core/pipeline/densified_rows.h), into csr, coo or row_sparse each block as stored,
// converted as the whole element is, and written by the same row writer (its entries, stored
// zeros kept). A csc element, or a coo whose rows go back, is densified from bands of its rows
// when its whole conversion does not fit (convertBandBytes); a csc into csc is canonicalized a
// panel of columns at a time (core/pipeline/convert_csc_columns.h). The file holds what the
// whole-tensor conversion writes.
#include "core/io/h5_catalog.h"
#include "core/pipeline/convert_file.h"
#include "core/pipeline/densified_rows.h"

namespace sparsity::core {

// Whether convertInBlocks can do `e` into `target`: a dense, unmasked dataset of rank >= 1
// (to any layout that can hold it), an unmasked csr, row_sparse or coo element to dense, csr,
// coo or row_sparse (core/pipeline/convert_stored.h; a coo into coo, whatever its rows' order,
// copied a run of entries at a time: core/pipeline/convert_coo_entries.h; a csc into csc, a
// panel of columns at a time: core/pipeline/convert_csc_columns.h), or a masked_tensor read by
// rows to the same (core/pipeline/convert_masked.h). Asked before convertBandBytes, which
// takes the elements it leaves.
bool convertInBlocksCan(const H5File &input, const ElementInfo &e, Layout target);

// `bandBytes`: how a sparse element's rows are read: 0, as stored (RowRead::ByRows), where
// convertInBlocksCan said yes; in bands of that many bytes (RowRead::ByBands) where
// convertBandBytes chose them (a csc, or a coo whose rows go back).
ConvertedElement convertInBlocks(const ConvertRequest &request,
                                 const H5File &input,
                                 const ElementInfo &e,
                                 H5File &output,
                                 ValidationReport &report,
                                 std::int64_t budgetBytes,
                                 std::int64_t bandBytes);

} // namespace sparsity::core
