#include "core/pipeline/eval_file.h"

#include "core/io/atomic_output.h"
#include "core/io/h5_writer.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/eval_blocks.h"
#include "core/util/elapsed.h"
#include "core/util/memory_bound.h"
#include "core/util/memory_budget.h"

#include <algorithm>

namespace sparsity::core {
EvalReport evalFile(const EvalRequest &request, ValidationReport &report)
{
    const auto start = Clock::now();
    const auto &group = ranks();
    std::unique_ptr<Expression> expression;
    EvalReport result;
    EvalRowPlan plan;
    std::int64_t budget = 0;
    // Checked by every rank; one that cannot bind an input stops all before any output exists.
    agreeOn(group, [&] {
        expression = parseExpression(request.expression);
        result.inputs = bindInputs(request.inputs, *expression, request.expression, request.output);
        result.device = resolveDevice(request.device);
        if (request.keepResult)
            return;
        // An expression over plain dense inputs that can be evaluated by rows streams: always
        // on the CPU (it is faster than holding the tensors: 0.63 s against 1.83 s for 256 MiB
        // elementwise), on the GPU when the inputs are over the budget.
        budget = resolveMemoryLimit(request.memoryLimit);
        // Half the budget for the bands of the csc inputs and coo ones whose rows go back, where
        // they densify by bands; the blocks take the rest.
        describeBoundInputs(result.inputs, budget / 2);
        const auto bytes = evalInputBytes(*expression, result.inputs);
        plan = planEvalInRows(*expression, result.inputs);
        const bool streams = plan.kind != EvalRowPlan::Kind::Whole && (result.device == Device::Cpu || bytes > budget)
                             && fitsFreeSpaceOf(request.output, bytes);
        // Over the budget it streams or fails: when the output's disk is what stops it, say so.
        if (plan.kind != EvalRowPlan::Kind::Whole && bytes > budget)
            requireRoomToStream(request.output, bytes, "expression '" + request.expression + "'");
        if (!streams)
            plan.kind = EvalRowPlan::Kind::Whole;
    });
    const double deviceInit = agreeOn(group, [&] { return initDevice(result.device); });
    if (group.onEveryRank(plan.kind != EvalRowPlan::Kind::Whole)) {
        const bool bands = std::any_of(result.inputs.begin(), result.inputs.end(), [](const auto &i) { return i.bandBytes > 0; });
        auto streamed = evalInBlocks(request, *expression, plan, std::move(result.inputs), result.device, report,
                                     std::min(bands ? budget / 2 : budget, kEvalBlockBytes));
        streamed.deviceInitSeconds = deviceInit;
        return streamed;
    }
    result.deviceInitSeconds = deviceInit;

    // Whole: every rank evaluates it, the root writes it. readBoundInputs names the input it
    // reads; an allocation failing in it or in the evaluation is named by the expression.
    std::optional<Tensor> tensor;
    Clock::time_point inputsRead, computed;
    agreeOn(group, [&] {
        const std::string where = "expression '" + request.expression + "'";
        auto tensors = withAllocationContext(where, "reading its inputs", [&] { return readBoundInputs(result.inputs, report); });
        // Evaluation holds every operand densely: a sparse input may declare far more elements
        // than it stores. Each must fit the machine (exit 3, naming it), and together they must
        // fit --memory-limit, as reading them must (exit 2).
        const auto used = expression->inputNames();
        for (const auto &input : result.inputs)
            if (std::find(used.begin(), used.end(), input.binding.name) != used.end())
                requireAllocatable(numel(input.shape), dtypeSize(computeTypeFor(input.dtype)),
                                   input.binding.file + ":" + input.binding.path);
        requireWithinBudget(evalInputBytes(*expression, result.inputs), where, "holding its inputs densely");
        // The result's precision follows the inputs whose values the expression uses (torch's
        // type promotion): a float64 input bound but unused, or used only as a pattern, leaves
        // a float32 computation float32.
        const auto inputs =
            withAllocationContext(where, "holding its inputs densely", [&] { return makeEvalInputs(tensors, *expression); });
        tensors.clear();
        inputsRead = Clock::now();
        result.result = withAllocationContext(where, "evaluating it", [&] {
            return evaluateExpression(*expression, request.expression, inputs, request.policy, result.device);
        });
        tensor.emplace(withAllocationContext(where, "storing its result", [&] { return toTensor(result.result); }));
        computed = Clock::now();
    });

    AtomicOutput output(request.output);
    writeTensor(output.file(), "/result", *tensor);
    output.commit();
    result.kind = std::visit([](const auto &v) { return v.kind; }, result.result);
    result.shape = tensor->shape();
    result.dtype = tensor->dtype();
    result.layout = tensor->layout();
    result.specified = tensor->specifiedCount();
    result.stored = tensor->storedCount();
    result.computeSeconds = secondsBetween(inputsRead, computed);
    result.ioSeconds = secondsBetween(start, inputsRead) - deviceInit + secondsSince(computed);
    return result;
}

} // namespace sparsity::core
