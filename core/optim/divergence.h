#pragma once
// Where two runs of the same step under different semantics disagree: for the parameter and
// each state, the largest absolute difference and the number of rows that differ at all.
#include "core/optim/optimizer_state.h"

#include <string>
#include <vector>

namespace sparsity::core {

struct TensorDivergence {
    std::string name; // "param", "sum", "exp_avg", ..., "last_update"
    double maxAbsDiff = 0.0;
    std::int64_t differingRows = 0;
};

template <class T>
std::vector<TensorDivergence> compareRuns(const DenseTensor<T> &paramA,
                                          const OptimizerState<T> &stateA,
                                          const DenseTensor<T> &paramB,
                                          const OptimizerState<T> &stateB);

} // namespace sparsity::core
