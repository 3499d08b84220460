#pragma once
// The block pipeline of `sparsify` on an element written dense, masked, csr, coo or
// row_sparse: a dense dataset's rows are read by hyperslab straight into reused buffers (a csr
// or row_sparse element's rows densified into them, a masked_tensor's of dense, csr or
// row_sparse data with its specified elements beside them; a coo or csc element read once,
// held coalesced, and each block filled from it: core/pipeline/densified_rows.h), the mask is
// computed and applied in place with the report tallied in the same pass (OpenMP), and the rows
// are written from the same buffer. One I/O thread makes every HDF5 call, reading block k+1 and
// writing block k-1 while block k is computed.
//
// Memory: when the element fits the budget it is read once into one buffer (the histogram
// range and row-norm's ranking come from that read); otherwise a ring of three blocks
// streams it in two passes (the first for the range, the row norms and, for sparse layouts,
// the nonzeros each row keeps, which size the output before it is written). Either way the file
// and the report are those of the whole-tensor computation, bit for bit.
//
// csc always streams: the first pass counts each column's nonzeros, then the element is read
// again in column panels (core/pipeline/csc_panels.h; across ranks, each rank its share of the
// panels), each tile masked and tallied as a block is; that pass runs on the calling thread,
// after the I/O thread's work.
#include "core/io/h5_catalog.h"
#include "core/pipeline/sparsify_file.h"

namespace sparsity::core {

// Whether sparsifyInBlocks can do `e` of `input` with its config (method, layout, rank; a
// masked_tensor only when it is read by rows).
bool blockPipelineCan(const SparsifyRequest &request, const H5File &input, const ElementInfo &e);

SparsifiedElement sparsifyInBlocks(const SparsifyRequest &request,
                                   const H5File &input,
                                   const ElementInfo &e,
                                   H5File &output,
                                   ValidationReport &report,
                                   std::int64_t budgetBytes);

} // namespace sparsity::core
