#pragma once
// The same optimizer steps under several semantics on one parameter. eachRunFromOneStart is
// the one implementation of every comparison: `sparsity step --compare` on whole tensors and
// the GUI's Optimizer panel (compareSemantics: every run kept, in double, for display and
// differencing) through stepEachRun, and the streamed step on each block of rows. Each run
// starts from the same parameter and state; the divergence of each later run against the
// first is measured in the parameter's own dtype.
#include "core/device/device.h"
#include "core/device/gpu_steps.h"
#include "core/optim/divergence.h"
#include "core/optim/optimizer_options.h"
#include "core/optim/optimizer_step.h"
#include "core/util/errors.h"

#include <span>
#include <string>
#include <vector>

namespace sparsity::core {

template <class T>
struct SteppedRuns {
    DenseTensor<T> param; // the first run's
    OptimizerState<T> state;
    std::vector<std::vector<TensorDivergence>> divergence; // run k + 1 against the first
};

// Each of `runs` from one start: the one loop of every comparison of semantics (whole tensors
// below, and a block of rows at a time in the streamed step). Run k steps its own copy of
// `original` and `start` (a state, which no semantics changes the shape of) by
// `stepRun(k, options, param, state)`; `keep(k, param, state)` sees its result, and each later
// run is measured against the first. The last run takes `original` and `start` themselves, so
// a single run copies nothing.
template <class T, class StepRun, class Keep>
SteppedRuns<T> eachRunFromOneStart(
    DenseTensor<T> original, OptimizerState<T> start, std::span<const OptimizerOptions> runs, StepRun &&stepRun, Keep &&keep)
{
    SteppedRuns<T> first;
    const auto count = static_cast<std::int64_t>(runs.size());
    for (std::int64_t k = 0; k < count; ++k) {
        const auto &options = runs[static_cast<std::size_t>(k)];
        const bool last = k + 1 == count;
        auto param = last ? std::move(original) : original;
        auto state = last ? std::move(start) : start;
        stepRun(k, options, param, state);
        keep(k, param, state);
        if (k == 0) {
            first.param = std::move(param);
            first.state = std::move(state);
        } else {
            first.divergence.push_back(compareRuns(first.param, first.state, param, state));
        }
    }
    return first;
}

// Steps `gradients` under each of `runs` from `original` and `start`, on `device`; the mask
// is given to masked runs only. `keep(k, param, state)` sees
// each run's result. A run's error names its semantics when there are several runs.
// `progress` counts the steps of every run (a GPU run's at its end).
template <class T, class Keep>
SteppedRuns<T> stepEachRun(DenseTensor<T> original,
                           OptimizerState<T> start,
                           std::span<const OptimizerOptions> runs,
                           std::span<const NamedGradient> gradients,
                           const Tensor *mask,
                           Device device,
                           Keep &&keep,
                           const ProgressCallback &progress = {})
{
    const auto count = static_cast<std::int64_t>(runs.size()), steps = static_cast<std::int64_t>(gradients.size());
    const auto stepRun = [&](std::int64_t k, const OptimizerOptions &options, DenseTensor<T> &param, OptimizerState<T> &state) {
        const ProgressCallback runProgress = [&](std::int64_t done, std::int64_t) {
            return !progress || progress(k * steps + done, count * steps);
        };
        try {
            const Tensor *runMask = options.semantics == Semantics::Masked ? mask : nullptr;
            if (device == Device::Cuda) {
                reportProgress(runProgress, 0, steps);
                runStepsOnGpu(param, state, options, gradients, runMask);
            } else {
                runSteps(param, state, options, gradients, runMask, runProgress);
            }
            reportProgress(runProgress, steps, steps);
        } catch (const Error &error) {
            if (count == 1)
                throw;
            rethrowWithContext(error, std::string(semanticsName(options.semantics)) + " semantics");
        }
    };
    return eachRunFromOneStart(std::move(original), std::move(start), runs, stepRun, std::forward<Keep>(keep));
}

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
