#pragma once
// `step` a block of rows at a time (docs/CLI.md, "step"; docs/SCALING.md for ranks). Every
// optimizer, rule and semantics updates a row of the parameter and its states from the same row of
// the gradients alone, with one step count for the whole parameter, so the steps can run block by
// block: read a block of the parameter and of every state (or fresh ones), run every step on it in
// order, write the block. A parameter, a --state-from state or a --mask that is not read by rows
// (coo, csc, sparse masked) is read once and coalesced once, and each block densified from its rows
// of it, as a gradient read whole fills a block. Gradients read by rows (dense, csr, row_sparse, a
// masked_tensor of dense, csr or row_sparse data with a mask of its layout) are read a block at a
// time; the others (coo, csc, other sparse masked ones) are read once (a coo or csc gradient's
// entries, and a masked one's of coo or csc data and mask, divided among the ranks by row,
// coo_rows_exchange.h) and coalesced once, but for a coo or csc gradient that so held would not
// fit the budget, which one process reads a block of rows at a time by bands (RowBandReader:
// past two blocks, from the spill it first sorts it into by row). A lazy or mask-less masked run
// takes each block's rows of the coalesced pattern, so a block that no gradient touches is
// copied through without computing; a dense run, or a masked one with --mask, fills each block's
// pattern from them (zeros, or the mask's elements) and never holds one at the parameter's size.
// The file written holds exactly what stepping the whole tensors would (tests compare the two),
// in memory bounded by the budget (the elements read whole must fit it with their coalesced
// patterns; a block of a gradient read by bands is counted an entry an element).
#include "core/pipeline/densified_rows.h"
#include "core/pipeline/step_file.h"

namespace sparsity::core {

// The most a block holds when the budget would allow more: a few tens of MiB keep the working
// set near the caches.
inline constexpr std::int64_t kStepBlockBytes = std::int64_t{32} << 20;

// How `request` steps: Whole, or by rows with how each gradient is read.
struct StepRowPlan {
    bool byRows = false;
    Shape paramShape;
    DType paramDType = DType::Float32; // as stored
    RowRead param = RowRead::Dense;    // a plain dense dataset, else densified a block at a time
    std::vector<RowRead> states;       // resuming: each of the optimizer's states, in order
    RowRead lastUpdate = RowRead::Dense;
    std::vector<char> gradientByRows; // per --grad: read a block at a time, else whole
    // --mask, where it is not read by hyperslab (dense, csr): densified a block at a time, read
    // by rows (RowRead::ByRows: an unmasked row_sparse, or coo whose entries' rows ascend) or
    // read once, each block filled from it (Whole: another coo, a csc, a sparse masked_tensor)
    std::optional<RowRead> maskDensified;
};

// By rows on the CPU when the parameter has rows (a plain dense dataset; csr, row_sparse or a
// masked_tensor of dense, csr or row_sparse data with a mask of its layout, read by rows; coo, csc
// or a sparse masked_tensor, read once; each densified a block at a time), resuming, every state
// and /last_update are numeric and read likewise (one read once only where its compute type is
// the one the whole step densifies it in), and the mask (if any) has the parameter's shape (read by
// rows, or read once when it is sparse). Shapes are described, not read; a mismatch is left for the step
// to report.
StepRowPlan planStepInRows(const StepRequest &request, const OptimizerOptions &options, Device device);

// Runs the steps of `request` by `plan` (byRows) within `budgetBytes` on ranks(), each rank its
// own rows, and writes OUT collectively. `compared` are the --compare semantics' options.
StepReport stepInBlocks(const StepRequest &request,
                        const StepRowPlan &plan,
                        const OptimizerOptions &options,
                        const std::vector<OptimizerOptions> &compared,
                        ValidationReport &report,
                        std::int64_t budgetBytes,
                        const ProgressCallback &progress);

} // namespace sparsity::core
