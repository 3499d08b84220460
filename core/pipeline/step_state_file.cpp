#include "core/pipeline/step_state_file.h"

#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

namespace sparsity::core {

std::int64_t readPreviousStep(const H5File &previous)
{
    const auto values = toDenseDouble(readTensor(previous, "/state/step"));
    if (values.values.size() != 1)
        throw errors::mustBe(previous.where("/state/step"), "hold one integer", shapeToString(values.shape));
    const auto step = static_cast<std::int64_t>(values.values[0]);
    if (step < 0)
        throw errors::mustBe(previous.where("/state/step"), "be >= 0", std::to_string(step));
    return step;
}

void requirePreviousStates(const H5File &previous, const OptimizerOptions &options, const Shape &paramShape)
{
    for (const auto &name : stateNames(options)) {
        const std::string path = "/state/" + name;
        if (!linkExists(previous.id(), path))
            throw InputError(previous.where(path) + ": state of " + std::string(optimizerName(options.kind))
                             + " not found (was the file written by another optimizer?)");
        const auto shape = requireElement(previous, path).shape;
        if (shape != paramShape)
            throw errors::mustBe(previous.where(path), "have the parameter's shape " + shapeToString(paramShape),
                                 shapeToString(shape));
    }
    const auto lastUpdate = requireElement(previous, "/last_update").shape;
    if (lastUpdate != Shape{parameterRows(paramShape)})
        throw errors::mustBe(previous.where("/last_update"),
                             "have one entry per parameter row (" + std::to_string(parameterRows(paramShape)) + ")",
                             shapeToString(lastUpdate));
}

template <class T>
OptimizerState<T> readPreviousState(const H5File &previous, const OptimizerOptions &options, const Shape &paramShape)
{
    requirePreviousStates(previous, options, paramShape);
    OptimizerState<T> state;
    for (const auto &name : stateNames(options))
        state.buffers.push_back({name, toDenseAs<T>(readTensor(previous, "/state/" + name))});
    state.step = readPreviousStep(previous);
    const auto last = toDenseDouble(readTensor(previous, "/last_update"));
    state.lastUpdate.assign(last.values.begin(), last.values.end());
    return state;
}

template OptimizerState<float> readPreviousState<float>(const H5File &, const OptimizerOptions &, const Shape &);
template OptimizerState<double> readPreviousState<double>(const H5File &, const OptimizerOptions &, const Shape &);

} // namespace sparsity::core
