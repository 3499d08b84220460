#pragma once
// NAME=FILE.h5:PATH inputs of `eval` and `gradcheck`: parsing, checking that an expression
// uses only bound names (before any file is opened), and reading the bound tensors.
#include "core/expr/evaluator.h"
#include "core/tensor/dtype.h"
#include "core/util/validation_report.h"

#include <string>
#include <vector>

namespace sparsity::core {

struct InputBinding {
    std::string name;
    std::string file;
    std::string path;
};

// "x=data.h5:/weights" -> {x, data.h5, /weights}. Throws InputError naming the argument.
InputBinding parseInputBinding(const std::string &argument);

struct BoundInput {
    InputBinding binding;
    Shape shape;
    Layout layout = Layout::Dense;
    DType dtype = DType::Float32; // as stored
    bool masked = false;
    std::int64_t specified = 0;
};

// Parses every binding, refuses duplicate names and an `output` equal to an input file, and
// checks that `expression` uses only bound names (error with the column otherwise).
std::vector<BoundInput> bindInputs(const std::vector<std::string> &arguments,
                                   const Expression &expression,
                                   std::string_view source,
                                   const std::string &output = {});

// Fills in the inputs' shapes, layouts, dtypes and stored counts from their files' metadata,
// reading no values (whether the evaluation can stream is decided on these).
void describeBoundInputs(std::vector<BoundInput> &inputs);

// Reads the bound tensors (bool datasets become masks, without a conversion notice) and fills
// in their shapes, layouts and dtypes.
std::vector<NamedTensor> readBoundInputs(std::vector<BoundInput> &inputs, ValidationReport &report);

} // namespace sparsity::core
