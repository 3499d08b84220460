#include "core/pipeline/eval_file.h"

#include "core/io/atomic_output.h"
#include "core/io/h5_writer.h"

#include <chrono>

namespace sparsity::core {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

} // namespace

EvalReport evalFile(const EvalRequest &request, ValidationReport &report)
{
    const auto start = Clock::now();
    const auto expression = parseExpression(request.expression);
    EvalReport result;
    result.inputs = bindInputs(request.inputs, *expression, request.expression, request.output);
    result.device = resolveDevice(request.device);

    auto tensors = readBoundInputs(result.inputs, report);
    // The result's precision follows the inputs whose values the expression uses (torch's type
    // promotion): a float64 input bound but unused, or used only as a pattern, leaves a float32
    // computation float32.
    const auto inputs = makeEvalInputs(tensors, *expression);
    tensors.clear();
    const auto inputsRead = Clock::now();
    result.result = evaluateExpression(*expression, request.expression, inputs, request.policy, result.device);
    const Tensor tensor = toTensor(result.result);
    const auto computed = Clock::now();

    AtomicOutput output(request.output);
    writeTensor(output.file(), "/result", tensor);
    output.commit();
    result.layout = tensor.layout();
    result.specified = tensor.specifiedCount();
    result.stored = tensor.storedCount();
    result.computeSeconds = seconds(inputsRead, computed);
    result.ioSeconds = seconds(start, inputsRead) + seconds(computed, Clock::now());
    return result;
}

} // namespace sparsity::core
