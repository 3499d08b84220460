#pragma once
// The same optimizer steps under several semantics on one parameter, in memory: what the
// GUI's Optimizer panel shows side by side (`sparsity step --compare` reports only the
// divergence). Each semantics starts from the same parameter and fresh state; results are
// kept in double for display and differencing, and the divergence of each later semantics
// against the first is measured in the parameter's own dtype (as `step --compare`).
#include "core/device/device.h"
#include "core/optim/divergence.h"
#include "core/optim/optimizer_options.h"
#include "core/optim/optimizer_step.h"

#include <span>
#include <string>
#include <vector>

namespace sparsity::core {

struct SemanticsResult {
    Semantics semantics = Semantics::Dense;
    // "param", then the state buffers in stateNames() order; each of the parameter's shape.
    std::vector<std::pair<std::string, DenseTensor<double>>> tensors;
    Buffer<std::int64_t> lastUpdate; // per row: the step that last wrote it (0: never)
    std::int64_t finalStep = 0;
};

struct SemanticsComparison {
    std::vector<SemanticsResult> results; // in the order asked for
    // divergence[i] compares results[i + 1] against results[0].
    std::vector<std::vector<TensorDivergence>> divergence;
};

// Throws InputError naming the semantics a rule refuses (before any step runs) or the
// gradient a step refuses; Cancelled through `progress`.
SemanticsComparison compareSemantics(const Tensor &param,
                                     std::span<const NamedGradient> gradients,
                                     const Tensor *mask,
                                     OptimizerKind kind,
                                     Rule rule,
                                     const HyperparameterInput &hyperparameters,
                                     std::span<const Semantics> semantics,
                                     const ProgressCallback &progress = {},
                                     Device device = Device::Cpu);

} // namespace sparsity::core
