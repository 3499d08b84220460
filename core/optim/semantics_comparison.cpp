#include "core/optim/semantics_comparison.h"

#include "core/device/gpu_steps.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

namespace sparsity::core {
namespace {

template <class T>
DenseTensor<double> toDouble(const DenseTensor<T> &t)
{
    DenseTensor<double> out{t.shape, {}};
    out.values.resize(t.values.size());
    for (std::size_t i = 0; i < t.values.size(); ++i)
        out.values[i] = static_cast<double>(t.values[i]);
    return out;
}

} // namespace

SemanticsComparison compareSemantics(const Tensor &param,
                                     std::span<const NamedGradient> gradients,
                                     const Tensor *mask,
                                     OptimizerKind kind,
                                     Rule rule,
                                     const HyperparameterInput &hyperparameters,
                                     std::span<const Semantics> semantics,
                                     const ProgressCallback &progress,
                                     Device device)
{
    if (semantics.empty())
        throw errors::mustBe("semantics", "name at least one of dense, lazy, masked", "none");
    std::vector<OptimizerOptions> options;
    for (const auto s : semantics) {
        try {
            options.push_back(resolveOptions(kind, s, rule, hyperparameters));
        } catch (const Error &error) {
            rethrowWithContext(error, std::string(semanticsName(s)) + " semantics");
        }
    }
    SemanticsComparison comparison;
    param.visit([&](const auto &storage) {
        using T = ValueOf<decltype(storage)>;
        auto original = toDenseAs<T>(param);
        auto start = initialState<T>(options[0], original.shape); // the same for every semantics
        auto stepped = stepEachRun(
            std::move(original), std::move(start), std::span<const OptimizerOptions>(options), gradients, mask, device,
            [&](std::int64_t k, const DenseTensor<T> &p, const OptimizerState<T> &state) {
                SemanticsResult result{
                    options[static_cast<std::size_t>(k)].semantics, {{"param", toDouble(p)}}, state.lastUpdate, state.step};
                for (const auto &buffer : state.buffers)
                    result.tensors.emplace_back(buffer.name, toDouble(buffer.value));
                comparison.results.push_back(std::move(result));
            },
            progress);
        comparison.divergence = std::move(stepped.divergence);
    });
    return comparison;
}

} // namespace sparsity::core
