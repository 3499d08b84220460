#pragma once
// `eval` of an elementwise expression over inputs larger than the memory budget: read a block
// of rows of every input, evaluate the expression on it, write the block's rows of /result,
// and go on — each element of the result depends only on the same element of the inputs, so
// the file written holds exactly what evaluating the whole tensors would (tests compare the
// two). The blocks are sized so the inputs, their evaluator copies and the result fit the
// budget.
#include "core/pipeline/eval_file.h"

namespace sparsity::core {

// The most a block holds when the budget would allow more: a few tens of MiB keep the working
// set near the caches.
inline constexpr std::int64_t kEvalBlockBytes = std::int64_t{32} << 20;

// Whether `expression` over `inputs` (described, not read) can be evaluated a block of rows at
// a time: every node a number, an input or an elementwise op (no reduction, product, softmax
// or layout change); every bound input a plain dense dataset (not masked, not bool, not
// sparse); the inputs it uses of one shape with at least one dim.
bool evalInBlocksCan(const Expression &expression, const std::vector<BoundInput> &inputs);

// The bytes the whole-tensor evaluation would hold for the inputs it uses, in their compute types.
std::int64_t evalInputBytes(const Expression &expression, const std::vector<BoundInput> &inputs);

// Evaluates and writes /result of `request.output` block by block within `budgetBytes`.
// `inputs` are described (describeBoundInputs); notices of converted dtypes go to `report`.
EvalReport evalInBlocks(const EvalRequest &request,
                        const Expression &expression,
                        std::vector<BoundInput> inputs,
                        Device device,
                        ValidationReport &report,
                        std::int64_t budgetBytes);

} // namespace sparsity::core
