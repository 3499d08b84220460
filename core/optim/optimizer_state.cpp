#include "core/optim/optimizer_state.h"

#include <algorithm>

namespace sparsity::core {

std::vector<std::string> stateNames(const OptimizerOptions &options)
{
    switch (options.kind) {
    case OptimizerKind::Adagrad:
        return {"sum"};
    case OptimizerKind::Adam:
        return {"exp_avg", "exp_avg_sq"};
    case OptimizerKind::Sgd:
        if (options.hp.momentum != 0)
            return {"momentum_buffer"};
        return {};
    }
    return {};
}

std::int64_t parameterRows(const Shape &shape) { return shape.empty() ? 1 : shape[0]; }

template <class T>
OptimizerState<T> initialState(const OptimizerOptions &options, const Shape &paramShape)
{
    OptimizerState<T> state;
    const T initial = options.kind == OptimizerKind::Adagrad && options.rule == Rule::Torch
                          ? static_cast<T>(options.hp.initialAccumulatorValue)
                          : T(0);
    const auto count = static_cast<std::size_t>(checkedNumel(paramShape));
    for (const auto &name : stateNames(options)) {
        DenseTensor<T> buffer{paramShape, zeroedBuffer<T>(count)};
        if (initial != T(0))
            std::fill(buffer.values.begin(), buffer.values.end(), initial);
        state.buffers.push_back({name, std::move(buffer)});
    }
    state.lastUpdate = zeroedBuffer<std::int64_t>(static_cast<std::size_t>(parameterRows(paramShape)));
    return state;
}

template OptimizerState<float> initialState<float>(const OptimizerOptions &, const Shape &);
template OptimizerState<double> initialState<double>(const OptimizerOptions &, const Shape &);

} // namespace sparsity::core
