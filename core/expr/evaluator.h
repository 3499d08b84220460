#pragma once
// Evaluates a parsed expression over named inputs with torch.masked semantics (docs/SEMANTICS.md, "Masked tensors").
//
// Elementwise subexpressions are fused: a maximal elementwise subtree becomes one
// ElementwiseProgram evaluated in cache-sized blocks, and a reduction over it consumes the
// blocks directly. Non-elementwise ops (softmax, products, layout changes) materialise their
// operands. Values compute in float64 when an input whose values reach the result is float64,
// else in float32, as torch's type promotion would (computesInDouble).
//
// Binary ops on two masked operands need equal masks (MaskPolicy::Strict, torch's rule); the
// error says how they differ. MaskPolicy::Intersect combines them as (v1 op v2, m1 AND m2).
// Shapes must be equal or one operand 0-d (a scalar); there is no other broadcasting.
#include "core/autograd/tape.h"
#include "core/device/device.h"
#include "core/expr/expression.h"
#include "core/masked/masked_value.h"
#include "core/masked/reduction_kernels.h"
#include "core/masked/softmax_kernel.h"
#include "core/tensor/by_precision.h"

#include <map>
#include <string>
#include <variant>
#include <vector>

namespace sparsity::core {

enum class MaskPolicy { Strict, Intersect };

using AnyValue = std::variant<MaskedValue<float>, MaskedValue<double>>;
using SharedValue = std::variant<std::shared_ptr<const MaskedValue<float>>, std::shared_ptr<const MaskedValue<double>>>;

struct EvalInput {
    std::string name;
    SharedValue value;
};

struct NamedTensor {
    std::string name;
    Tensor tensor;
    bool isBool = false; // a bool dataset: a mask for sparse_mask, masked, where
};

// Converts tensors to evaluator inputs once (as torch builds a MaskedTensor once): in float64
// when any of them is float64 (or `forceDouble`), else in float32.
std::vector<EvalInput> makeEvalInputs(const std::vector<NamedTensor> &tensors, bool forceDouble = false);
// In float64 exactly when `useDouble`: a precision decided beforehand, over the whole inputs
// (a streamed evaluation converts a block of rows at a time). Takes the tensors' values where
// their type is the one computed in (no copy).
std::vector<EvalInput> makeEvalInputsIn(std::vector<NamedTensor> &&tensors, bool useDouble);

// The values of `input`, in T, when nothing else holds them (the evaluation that used them is
// done): a streamed evaluation reads its next block into them rather than into fresh memory.
// Empty otherwise. `input` must come from makeEvalInputs or makeEvalInputsIn, whose values
// are created mutable; moving out of any other would be undefined.
template <class T>
Buffer<T> releasedValues(EvalInput &input);

// Whether `expression` computes in float64, by torch's type promotion over the inputs whose
// values reach the result: float32 op float32 is float32, any float64 makes it float64. An
// input the expression does not reference does not count, nor one used only as the pattern of
// sparse_mask, masked or intersect (torch's x.sparse_mask(m) and masked_tensor(data, mask)
// keep the data's dtype), nor a bool mask.
bool computesInDouble(const Expression &expression, const std::vector<NamedTensor> &tensors);
// The inputs whose values reach the result, by name (those computesInDouble weighs).
std::vector<std::string> valueInputNames(const Expression &expression);

// The evaluator inputs of `expression`: the tensors it references, in the precision
// computesInDouble() decides.
std::vector<EvalInput> makeEvalInputs(const std::vector<NamedTensor> &tensors, const Expression &expression);

// Softmaxes over dim 0 whose columns' maxima and totals were folded beforehand over every row
// (a streamed evaluation of a block of rows, core/pipeline/eval_blocks.h): such a node's value
// is its columns' result for the block's rows (ColumnSoftmax::applied), not a softmax of the
// block alone. Keyed by the softmax node, in the precision the evaluation computes in.
template <class T>
using ColumnSoftmaxes = std::map<const Expression *, const ColumnSoftmax<T> *>;
using FoldedSoftmaxes = ByPrecision<ColumnSoftmaxes>;

// Throws InputError naming the expression and column for unknown inputs, shape mismatches,
// differing masks (a MaskMismatch, core/expr/mask_mismatch.h), bad dims and misuse of an op.
// On Device::Cuda the fused elementwise programs and reductions run on the GPU; softmax,
// products and layout changes stay on the CPU.
AnyValue evaluateExpression(const Expression &expression,
                            std::string_view source,
                            const std::vector<EvalInput> &inputs,
                            MaskPolicy policy = MaskPolicy::Strict,
                            Device device = Device::Cpu,
                            const FoldedSoftmaxes *folded = nullptr);

// Evaluates `expression`, elementwise over its inputs (a block of `rows` rows), and folds its
// values into `reduction` without holding them: the fused program feeds the fold, as a
// whole-tensor reduction is fed (a streamed reduction, core/pipeline/eval_blocks.h). T is the
// precision makeEvalInputs chose for the inputs.
template <class T>
void foldExpression(const Expression &expression,
                    std::string_view source,
                    const std::vector<EvalInput> &inputs,
                    MaskPolicy policy,
                    RowReduction<T> &reduction,
                    std::int64_t rows,
                    const FoldedSoftmaxes *folded = nullptr);

// The same evaluation in float64 without fusion, recording every node's value on `tape` for
// reverse mode (core/autograd/backward.h). Inputs must be float64.
MaskedValue<double>
evaluateRecorded(const Expression &expression, std::string_view source, const std::vector<EvalInput> &inputs, Tape &tape);

// evaluateExpression's result over float64 inputs near those `baseline` recorded (gradcheck's
// perturbed inputs): the same bits, with the lanes of a softmax whose operand lane is the
// recorded one's, bit for bit, taken from the recording (core/masked/softmax_kernel.h).
MaskedValue<double>
evaluateNear(const Expression &expression, std::string_view source, const std::vector<EvalInput> &inputs, const Tape &baseline);

Tensor toTensor(const AnyValue &value);
std::string formatValue(const AnyValue &value, int decimals = 4);

} // namespace sparsity::core
