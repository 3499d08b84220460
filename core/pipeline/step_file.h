#pragma once
// One `sparsity step` run: read the parameter (or a previous run's state), the gradients and
// the mask from HDF5, run one optimizer step per gradient, and write /param, /state/<name>,
// /state/step and /last_update atomically. Optionally the same steps run under other
// semantics on the same inputs, and the report says where they diverge.
#include "core/device/device.h"
#include "core/optim/divergence.h"
#include "core/optim/optimizer_options.h"
#include "core/tensor/dtype.h"
#include "core/util/progress.h"
#include "core/util/validation_report.h"

#include <optional>
#include <string>
#include <vector>

namespace sparsity::core {

struct StepRequest {
    std::string input;
    std::string output;
    OptimizerKind kind = OptimizerKind::Adagrad;
    Semantics semantics = Semantics::Dense;
    Rule rule = Rule::Torch;
    HyperparameterInput hyperparameters;
    DeviceChoice device = DeviceChoice::Cpu;
    std::optional<std::string> param;     // required unless stateFrom is given
    std::optional<std::string> paramFile; // the file --param is read from, when not `input`
                                          // (a batch steps on what its sparsifier wrote)
    std::vector<std::string> grads;       // one step each, in order
    std::optional<std::string> mask;
    std::optional<std::string> stateFrom; // a file `step` wrote
    std::vector<Semantics> compareWith;
    // The memory budget (nullopt: auto). A parameter with rows steps a block of rows at a time
    // within it (step_blocks.h); a step that holds whole tensors (CUDA, resuming from states
    // that are not dense) must fit it.
    std::optional<std::int64_t> memoryLimit;
};

struct SemanticsDivergence {
    Semantics against = Semantics::Dense;
    std::vector<TensorDivergence> tensors;
};

struct StepReport {
    OptimizerOptions options;
    Device device = Device::Cpu;
    double deviceInitSeconds = 0.0; // bringing the device up (core/device/device.h), not in either figure below
    Shape paramShape;
    DType dtype = DType::Float32;
    std::int64_t stepsRun = 0;
    std::int64_t finalStep = 0;
    std::int64_t rowsWritten = 0; // rows this run wrote at least once
    double computeSeconds = 0.0;
    double ioSeconds = 0.0;
    std::vector<SemanticsDivergence> divergence;
    bool streamed = false; // stepped a block of rows at a time
};

// Runs on every rank of ranks(), each its own rows, when the parameter steps by rows (see
// stepsByRows); otherwise on one rank (the CLI runs it on the root alone).
StepReport stepFile(const StepRequest &request, ValidationReport &report, const ProgressCallback &progress = {});

// Whether stepFile steps `request` a block of rows at a time (core/pipeline/step_blocks.h);
// false for a request it will refuse.
bool stepsByRows(const StepRequest &request);

} // namespace sparsity::core
