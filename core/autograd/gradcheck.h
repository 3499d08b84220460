#pragma once
// gradcheck (docs/SEMANTICS.md, "gradcheck"): the numerical Jacobian by central differences
// against the analytical one by backward passes, in float64.
//
// Jacobian rows are input elements (row-major), columns output elements (PyTorch's layout);
// unspecified output elements count as 0. Non-masked mode perturbs every element of a sparse
// or masked input as if it were dense (an unspecified element becomes specified with value
// ±eps); masked mode perturbs only specified elements, so rows of unspecified elements are 0
// numerically, while the analytical rows are whatever the backward passes give them. Fast
// mode compares one random projection vᵀJu per input instead of whole Jacobians (PyTorch's
// fast_mode), for inputs too large for full matrices.
#include "core/expr/evaluator.h"
#include "core/tensor/buffer.h"
#include "core/util/progress.h"

#include <array>
#include <map>
#include <string>
#include <vector>

namespace sparsity::core {

struct GradcheckOptions {
    bool masked = false;
    double eps = 1e-6;
    double atol = 1e-5;
    double rtol = 1e-3;
    bool fast = false;
    unsigned seed = 0; // fast mode's random vectors
    // Where each input came from ("FILE:PATH" by name), for messages; a name without one is
    // named alone.
    std::map<std::string, std::string> inputLabels;
};

struct InputJacobian {
    std::string name;
    Shape shape;                          // the input's
    std::int64_t rows = 0, cols = 0;      // fast mode: 1 x 1
    Buffer<double> numerical, analytical; // row-major rows x cols (huge-page backed when large)
    double maxAbsDiff = 0.0;
    std::vector<std::array<std::int64_t, 2>> mismatches; // [row, col]
    std::vector<std::string> uses;                       // how each use of the input treats its gradient
    std::vector<std::string> explanations;               // why mismatching rows differ
};

struct GradcheckReport {
    bool passed = true;
    GradcheckOptions options;
    Shape outputShape;
    std::vector<InputJacobian> inputs; // bool inputs (masks) are not listed
};

// Every non-bool input the expression uses gets a Jacobian. Throws InputError for expression
// errors (with the column) and for shape mismatches found by the forward pass. `progress`
// counts backward batches and perturbed rows; when it returns false the check stops at the
// next row and throws Cancelled.
GradcheckReport gradcheck(const Expression &expression,
                          std::string_view source,
                          const std::vector<NamedTensor> &tensors,
                          const GradcheckOptions &options,
                          const ProgressCallback &progress = {});

} // namespace sparsity::core
