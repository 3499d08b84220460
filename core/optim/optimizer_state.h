#pragma once
// OptimizerState<T>: everything a step reads and writes besides the parameter: the named
// state tensors (adagrad: sum; adam: exp_avg, exp_avg_sq; sgd: momentum_buffer when
// momentum != 0), the step count (per parameter, as in both references) and, per row of the
// parameter, the step that last wrote it (0 = never; steps count from 1).
#include "core/optim/optimizer_options.h"
#include "core/tensor/dense_tensor.h"

#include <string>
#include <vector>

namespace sparsity::core {

template <class T>
struct NamedState {
    std::string name;
    DenseTensor<T> value;
};

template <class T>
struct OptimizerState {
    std::int64_t step = 0;
    std::vector<NamedState<T>> buffers;
    Buffer<std::int64_t> lastUpdate;

    T *data(const std::string &name)
    {
        for (auto &buffer : buffers)
            if (buffer.name == name)
                return buffer.value.values.data();
        return nullptr;
    }
};

std::vector<std::string> stateNames(const OptimizerOptions &options);
// Number of "rows" of a parameter: shape[0], or 1 for a 0-d parameter.
std::int64_t parameterRows(const Shape &shape);

// Fresh state for `paramShape`: zeros, or adagrad's initial_accumulator_value (torch rule).
template <class T>
OptimizerState<T> initialState(const OptimizerOptions &options, const Shape &paramShape);

} // namespace sparsity::core
