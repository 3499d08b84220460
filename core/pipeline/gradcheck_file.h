#pragma once
// One `sparsity gradcheck` run: bind the named inputs, refuse inputs that cannot take
// a gradient (integer dtypes; bool datasets are masks and get no Jacobian), and run gradcheck
// in float64. Writes nothing.
#include "core/autograd/gradcheck.h"
#include "core/pipeline/input_bindings.h"

namespace sparsity::core {

struct GradcheckRequest {
    std::string expression;
    std::vector<InputBinding> inputs;
    GradcheckOptions options;
};

struct GradcheckFileReport {
    std::vector<BoundInput> inputs;
    GradcheckReport check;
    double computeSeconds = 0.0;
    double ioSeconds = 0.0;
};

// `progress` is gradcheck's (Cancelled when it returns false).
GradcheckFileReport
gradcheckFile(const GradcheckRequest &request, ValidationReport &report, const ProgressCallback &progress = {});

} // namespace sparsity::core
