#pragma once
// One `sparsity eval` run: parse the expression, bind the named inputs, evaluate, and
// write /result to the output in the result's own encoding (a masked result as a
// masked_tensor group, a sparse one as coo/csr), atomically. Every check that needs no data
// (syntax, unknown functions and inputs, output path) runs before any file is read.
#include "core/pipeline/input_bindings.h"

#include <optional>
#include <string>
#include <vector>

namespace sparsity::core {

struct EvalRequest {
    std::string expression;
    std::vector<InputBinding> inputs;
    std::string output;
    MaskPolicy policy = MaskPolicy::Strict;
    DeviceChoice device = DeviceChoice::Cpu;
    // The memory budget (nullopt: auto). An elementwise expression over plain dense inputs
    // larger than it is evaluated a block of rows at a time (core/pipeline/eval_blocks.h).
    std::optional<std::int64_t> memoryLimit;
    // The result is wanted in memory (to print it): never streamed.
    bool keepResult = false;
};

struct EvalReport {
    Device device = Device::Cpu;
    double deviceInitSeconds = 0.0; // bringing the device up (core/device/device.h), not in either figure below
    std::vector<BoundInput> inputs;
    AnyValue result;                   // empty when streamed
    bool streamed = false;             // evaluated a block of rows at a time
    ValueKind kind = ValueKind::Plain; // of /result
    Shape shape;                       // of /result
    DType dtype = DType::Float32;      // of /result
    Layout layout = Layout::Dense;     // of /result
    std::int64_t specified = 0;        // elements of the result that are specified
    std::int64_t stored = 0;           // values /result stores
    double computeSeconds = 0.0;
    double ioSeconds = 0.0;
};

EvalReport evalFile(const EvalRequest &request, ValidationReport &report);

} // namespace sparsity::core
