#pragma once
// Optimizer steps: one fused pass per step over the touched elements, parallel (OpenMP) over
// rows or elements, with the formulas of update_rules.h. Only the state of touched elements
// changes; no allocation proportional to the parameter happens per step (dense semantics
// aside, whose gradient is the whole tensor).
#include "core/optim/optimizer_state.h"
#include "core/optim/rule_dispatch.h"
#include "core/optim/update_pattern.h"
#include "core/tensor/tensor.h"
#include "core/util/progress.h"

#include <span>

namespace sparsity::core {

struct NamedGradient {
    std::string name; // for messages: "file.h5:/g0"
    Tensor tensor;
};

// Applies one step per gradient, in order. Validates everything before the first step (shape,
// mask), and each gradient before its step: a non-finite value throws InputError naming the
// gradient, element and step. On a throw `param` and `state` may hold the steps that did
// complete; callers that must leave no partial result work on copies (the CLI does, and
// writes nothing).
template <class T>
void runSteps(DenseTensor<T> &param,
              OptimizerState<T> &state,
              const OptimizerOptions &options,
              std::span<const NamedGradient> gradients,
              const Tensor *mask,
              const ProgressCallback &progress = {});

// The arrays of `param` and `state` in the order rules expect (state0, state1 = the state
// buffers in stateNames() order).
template <class T>
StatePointers<T> statePointers(DenseTensor<T> &param, OptimizerState<T> &state);

// The checks runSteps makes before the first step: every gradient has the parameter's shape,
// a mask only with masked semantics.
void validateStepInputs(const Shape &paramShape,
                        const OptimizerOptions &options,
                        std::span<const NamedGradient> gradients,
                        const Tensor *mask);
// Its two checks, for callers that know the shapes before reading (the streamed step).
void requireGradientShape(const std::string &gradient, const Shape &gradientShape, const Shape &paramShape);
void requireMaskFitsSemantics(bool hasMask, const OptimizerOptions &options);
// The pattern of one gradient's step, checked finite (InputError naming gradient, element, step).
// A gradient that holds rows [firstRow, ...) of the parameter's names its elements' rows from there.
template <class T>
UpdatePattern<T> checkedPattern(const NamedGradient &gradient,
                                const OptimizerOptions &options,
                                const Tensor *mask,
                                std::int64_t step,
                                std::int64_t firstRow = 0);

// checkedPattern for rows `rows` of a gradient read whole, under the dense semantics or the
// masked one with `mask` (the block's rows of --mask): from its fillSource, built once, what
// checkedPattern gives for the whole gradient's same rows, numbered from rows.begin.
// `recycled` lends its buffers (filledPattern).
template <class T>
UpdatePattern<T> checkedPatternInRows(const UpdatePattern<T> &source,
                                      const std::string &gradient,
                                      const OptimizerOptions &options,
                                      const Tensor *mask,
                                      std::int64_t step,
                                      RowRange rows,
                                      UpdatePattern<T> recycled = {});

// One step with a prepared pattern (benchmarks time this alone).
template <class T>
void applyStep(DenseTensor<T> &param, OptimizerState<T> &state, const OptimizerOptions &options, const UpdatePattern<T> &pattern);

} // namespace sparsity::core
