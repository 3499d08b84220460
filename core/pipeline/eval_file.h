#pragma once
// One `sparsity eval` run: parse the expression, bind NAME=FILE.h5:PATH inputs, evaluate, and
// write /result to the output in the result's own encoding (a masked result as a
// masked_tensor group, a sparse one as coo/csr), atomically. Every check that needs no data
// (syntax, unknown functions and inputs, output path) runs before any file is read.
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

struct EvalRequest {
    std::string expression;
    std::vector<std::string> inputs;   // NAME=FILE.h5:PATH
    std::string output;
    MaskPolicy policy = MaskPolicy::Strict;
    std::string device = "cpu";        // cpu, cuda or auto
};

struct EvaluatedInput {
    InputBinding binding;
    Shape shape;
    Layout layout = Layout::Dense;
    DType dtype = DType::Float32;      // as stored
    bool masked = false;
    std::int64_t specified = 0;
};

struct EvalReport {
    Device device = Device::Cpu;
    std::vector<EvaluatedInput> inputs;
    AnyValue result;
    Layout layout = Layout::Dense;     // of /result
    std::int64_t specified = 0;        // elements of the result that are specified
    std::int64_t stored = 0;           // values /result stores
    double computeSeconds = 0.0;
    double ioSeconds = 0.0;
};

EvalReport evalFile(const EvalRequest &request, ValidationReport &report);

} // namespace sparsity::core
