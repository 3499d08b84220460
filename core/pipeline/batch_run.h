#pragma once
// One input of a `sparsity run`: sparsify and/or step as the recipe says, writing one output
// atomically. With both, the sparsifier runs first and the step runs on its result (the
// step's --param is read from the sparsified datasets, its gradients from the input); the
// output holds both. An input's failure is reported, not thrown, and leaves no output;
// cancelling through `progress` throws Cancelled and also leaves no output.
#include "core/pipeline/batch_recipe.h"

namespace sparsity::core {

struct BatchInputReport {
    BatchJob job;
    bool ok = false;
    std::string error; // the one-line message when !ok
    std::vector<SparsifiedElement> sparsified;
    std::optional<StepReport> step;
    ValidationReport notes;
    double seconds = 0.0;
};

BatchInputReport runBatchJob(const BatchRecipe &recipe, const BatchJob &job, const ProgressCallback &progress = {});

} // namespace sparsity::core
