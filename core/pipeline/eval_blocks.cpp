#include "core/pipeline/eval_blocks.h"

#include "core/io/atomic_output.h"
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/masked/element_ops.h"
#include "core/parallel/rank_group.h"
#include "core/tensor/dtype.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace sparsity::core {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Numbers, inputs, - and the four operators are elementwise; a call is when its function is.
bool elementwiseOnly(const Expression &node)
{
    if (node.kind == Expression::Kind::Call && !elementOpNamed(node.name))
        return false;
    return std::all_of(node.operands.begin(), node.operands.end(), [](const auto &operand) { return elementwiseOnly(*operand); });
}

bool isUsed(const std::vector<std::string> &used, const BoundInput &input)
{
    return std::find(used.begin(), used.end(), input.binding.name) != used.end();
}

// Reads rows [first, end) of every used input in its compute type, as the whole path reads it.
std::vector<NamedTensor> readBlock(const std::vector<BoundInput> &inputs,
                                   const std::vector<std::string> &used,
                                   const std::vector<DenseRowReader> &readers,
                                   std::int64_t first,
                                   std::int64_t end)
{
    std::vector<NamedTensor> tensors;
    std::size_t reader = 0;
    for (const auto &input : inputs) {
        if (!isUsed(used, input))
            continue;
        Shape shape = input.shape;
        shape[0] = end - first;
        const auto read = [&](auto zero) {
            using T = decltype(zero);
            DenseTensor<T> block{shape, {}};
            block.values.resize(static_cast<std::size_t>(numel(shape)));
            readers[reader].readRows(first, end, block.values.data());
            return Tensor(Storage{std::move(block)});
        };
        tensors.push_back(
            {input.binding.name, computeTypeFor(input.dtype) == DType::Float32 ? read(float{}) : read(double{}), false});
        ++reader;
    }
    return tensors;
}

} // namespace

bool evalInBlocksCan(const Expression &expression, const std::vector<BoundInput> &inputs)
{
    if (!elementwiseOnly(expression))
        return false;
    const auto used = expression.inputNames();
    std::optional<Shape> shape;
    for (const auto &input : inputs) {
        if (input.layout != Layout::Dense || input.masked || input.dtype == DType::Bool)
            return false;
        if (!isUsed(used, input))
            continue;
        if (input.shape.empty() || input.shape[0] == 0 || (shape && input.shape != *shape))
            return false;
        shape = input.shape;
    }
    return shape.has_value();
}

std::int64_t evalInputBytes(const Expression &expression, const std::vector<BoundInput> &inputs)
{
    const auto used = expression.inputNames();
    std::int64_t bytes = 0;
    for (const auto &input : inputs)
        if (isUsed(used, input))
            bytes = std::min(std::numeric_limits<std::int64_t>::max() - bytes,
                             bytesFor(numel(input.shape), dtypeSize(computeTypeFor(input.dtype))))
                    + bytes; // saturating: a declared size may not fit
    return bytes;
}

EvalReport evalInBlocks(const EvalRequest &request,
                        const Expression &expression,
                        std::vector<BoundInput> inputs,
                        Device device,
                        ValidationReport &report,
                        std::int64_t budgetBytes)
{
    const auto start = Clock::now();
    EvalReport result;
    result.device = device;
    result.streamed = true;
    const auto used = expression.inputNames();
    std::vector<H5File> files;
    std::vector<DenseRowReader> readers;
    files.reserve(inputs.size());
    std::int64_t valueBytes = 0; // of one element of every used input, and of the result (at most 8)
    for (const auto &input : inputs) {
        if (!isUsed(used, input))
            continue;
        files.push_back(H5File::openRead(input.binding.file));
        readers.emplace_back(files.back(), input.binding.path);
        valueBytes += static_cast<std::int64_t>(dtypeSize(computeTypeFor(input.dtype)));
        noteConversion(&report, files.back().where(input.binding.path), input.dtype);
    }
    const Shape shape = [&] {
        for (const auto &input : inputs)
            if (isUsed(used, input))
                return input.shape;
        return Shape{};
    }();
    const auto rows = shape[0];
    const auto width = numel(shape, 1, shape.size());
    // Per element of a block: each input as read and as the evaluator's copy, and the result.
    const auto perRow = std::max<std::int64_t>(1, width * (2 * valueBytes + 8));
    const auto blockRows = std::clamp<std::int64_t>(budgetBytes / perRow, 1, std::max<std::int64_t>(rows, 1));

    // Across ranks: the same blocks, each rank its own range of them, every rank making as many
    // (collective) writes as the one with the most.
    const auto &group = ranks();
    const auto blocks = divideRows(group, rows, blockRows);
    double computeSeconds = 0.0;
    auto evaluate = [&](std::int64_t first, std::int64_t end) {
        const auto tensors = readBlock(inputs, used, readers, first, end);
        const auto computeStart = Clock::now();
        auto value =
            evaluateExpression(expression, request.expression, makeEvalInputs(tensors, expression), request.policy, device);
        computeSeconds += seconds(computeStart, Clock::now());
        return value;
    };
    // The result's dtype, known before any rank writes: the expression on the first row.
    agreeOn(group, [&] {
        std::visit([&](const auto &v) { result.dtype = dtypeOf<typename std::decay_t<decltype(v.values)>::value_type>(); },
                   evaluate(0, 1));
    });

    AtomicOutput output(request.output);
    RowStreamWriter writer(output.file(), "/result", shape, result.dtype);
    for (std::int64_t k = 0; k < blocks.rounds; ++k) {
        const auto block = blocks.block(k);
        std::optional<AnyValue> value;
        agreeOn(group, [&] {
            if (block.count() > 0)
                value = evaluate(block.begin, block.end);
        });
        if (!value) {
            writer.writeRows(block.begin, 0, nullptr);
            continue;
        }
        std::visit([&](const auto &v) { writer.writeRows(block.begin, block.count(), v.values.data()); }, *value);
    }
    output.commit();
    result.inputs = std::move(inputs); // described: dense inputs specify every element
    result.shape = shape;
    result.layout = Layout::Dense;
    result.specified = numel(shape);
    result.stored = numel(shape);
    result.computeSeconds = computeSeconds;
    result.ioSeconds = seconds(start, Clock::now()) - computeSeconds;
    return result;
}

} // namespace sparsity::core
