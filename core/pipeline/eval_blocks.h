#pragma once
// `eval` over inputs read a block of rows at a time (docs/CLI.md, "eval"; docs/SCALING.md for
// ranks). Two kinds of expression stream:
// * row-local ones, where a row of the result depends only on the same row of the inputs:
//   elementwise ops, reductions and softmax over a dim other than 0, and products by an input
//   read whole (`x * x`, `norm(x, 1)`, `softmax(mm(x, w), 1)`): read a block of rows of every
//   other input, evaluate, write the block's rows of /result;
// * a reduction over all dims or over dim 0 of a row-local expression (`sum(x * x)`,
//   `mean(x, 0)`): each block's rows fold into the running result (core/masked/
//   reduction_kernels.h, RowReduction), written once at the end.
// A softmax or log_softmax over dim 0 of a row-local operand of more than one column
// (`softmax(x, 0) * y`) counts as row-local: before the result's pass, two passes over the
// blocks fold its columns' maxima and totals (core/masked/softmax_kernel.h, ColumnSoftmax),
// then each block's rows take their columns' result.
// Reductions fold fixed tiles in a fixed order and a column's softmax steps go in row order, so
// the file written holds exactly what evaluating the whole tensors would (tests compare the
// two); masks that differ under the strict policy are reported as the whole evaluation reports
// them (mask_mismatch_log.h). Blocks are sized so the inputs, their evaluator copies and the
// block's result fit the budget.
#include "core/masked/reduction_kernels.h"
#include "core/pipeline/eval_file.h"

namespace sparsity::core {

// The most a block holds when the budget would allow more: a few tens of MiB keep the working
// set near the caches.
inline constexpr std::int64_t kEvalBlockBytes = std::int64_t{32} << 20;

// How an expression over its inputs (described, not read) can be evaluated by rows.
struct EvalRowPlan {
    enum class Kind { Whole, RowLocal, RowReduction };
    Kind kind = Kind::Whole;
    std::int64_t rows = 0; // every input the expression uses has them, but those held
    Shape resultShape;     // the whole result's
    // The inputs read whole, once, beside every block: a product's second operand (`w` in
    // `mm(x, w)`). Blocks then start at multiples of alignRows, a product's fixed chunks
    // (core/masked/matmul_kernels.h), so each row's bits are the whole product's.
    std::vector<std::string> held;
    std::int64_t alignRows = 1;
    // RowReduction: `op` (over `dim`: nullopt for all dims, or 0) of `operand`, a row-local
    // subexpression of shape `operandShape`.
    const Expression *operand = nullptr;
    Shape operandShape;
    ReduceOp op = ReduceOp::Sum;
    std::optional<int> dim;
    // The softmaxes over dim 0 whose columns are folded before the result's pass, each after
    // those in its operand; `columns`: elements per row of its operand.
    struct FoldedSoftmax {
        const Expression *node = nullptr;
        std::int64_t columns = 0;
    };
    std::vector<FoldedSoftmax> foldedSoftmaxes;
};

// Whole unless every bound input is a dense dataset (plain or bool), a masked_tensor of dense
// data and mask, or a sparse element densified by rows (csr, row_sparse, a coo whose entries'
// rows ascend) whose values alone the expression reads (an operand of elementwise ops,
// reductions and data(), not the result itself; the whole evaluation reads such a sparse value
// as the dense tensor it stands for) or that it does not use, those the expression uses
// non-empty and of one row count
// (a held input may have another; a masked or bool one bound but unused has it too, read for
// its checks), and the expression is row-local or a reduction over all dims or dim 0 of a
// row-local one (no product but mm(row-local, held input), no layout change).
EvalRowPlan planEvalInRows(const Expression &expression, const std::vector<BoundInput> &inputs);

// The bytes the whole-tensor evaluation would hold for the inputs it uses, in their compute types.
std::int64_t evalInputBytes(const Expression &expression, const std::vector<BoundInput> &inputs);

// Evaluates and writes /result of `request.output` block by block within `budgetBytes`, by
// `plan` (not Whole). `inputs` are described (describeBoundInputs); notices of converted
// dtypes go to `report`.
EvalReport evalInBlocks(const EvalRequest &request,
                        const Expression &expression,
                        const EvalRowPlan &plan,
                        std::vector<BoundInput> inputs,
                        Device device,
                        ValidationReport &report,
                        std::int64_t budgetBytes);

} // namespace sparsity::core
