#pragma once
// The expression evaluator's fused programs and reductions on the CUDA device, equal to the
// CPU kernels to float rounding. Throw InputError without a device and InternalError on a
// CUDA failure (or a program too large for the interpreter).
#include "core/masked/reduction_kernels.h"

namespace sparsity::core {

template <class T>
void evaluateOnGpu(const ElementwiseProgram<T> &program, std::int64_t numel, T *out);

template <class T>
MaskedValue<T>
reduceOnGpu(const ElementwiseProgram<T> &program, const Shape &shape, const Mask *mask, ReduceOp op, std::optional<int> dim);

} // namespace sparsity::core
