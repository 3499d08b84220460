#include "core/optim/optimizer_step.h"

#include "core/optim/update_rules.h"
#include "core/util/errors.h"

#include <cmath>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Runs `rule` over the pattern. The semantics only chose the elements; the rule is the
// formula. `perRowFirstTouch`: a momentum buffer starts on the first step that writes its
// row (lazy); otherwise on the parameter's first step.
template <class T, class Rule>
void sweep(const Rule &rule, const UpdatePattern<T> &p, const Buffer<std::int64_t> &lastUpdate, bool firstStep,
           bool perRowFirstTouch)
{
    using Kind = typename UpdatePattern<T>::Kind;
    const auto width = p.rowWidth;
    switch (p.kind) {
    case Kind::All: {
        const auto n = static_cast<std::int64_t>(p.values.size());
        // Elements are distinct, so the rule has no loop-carried dependence: vectorise.
#pragma omp parallel for simd schedule(static)
        for (std::int64_t i = 0; i < n; ++i)
            rule(i, p.values[at(i)], firstStep);
        break;
    }
    case Kind::Rows: {
        const auto rows = static_cast<std::int64_t>(p.rows.size());
#pragma omp parallel for schedule(static)
        for (std::int64_t k = 0; k < rows; ++k) {
            const auto r = p.rows[at(k)];
            const bool first = perRowFirstTouch ? lastUpdate[at(r)] == 0 : firstStep;
            const T *g = p.values.data() + k * width;
#pragma omp simd
            for (std::int64_t j = 0; j < width; ++j)
                rule(r * width + j, g[j], first);
        }
        break;
    }
    case Kind::Elements: {
        const auto n = static_cast<std::int64_t>(p.elements.size());
#pragma omp parallel for schedule(static)
        for (std::int64_t k = 0; k < n; ++k) {
            const auto i = p.elements[at(k)];
            const bool first = perRowFirstTouch ? lastUpdate[at(i / width)] == 0 : firstStep;
            rule(i, p.values[at(k)], first);
        }
        break;
    }
    }
}

template <class T>
void markTouchedRows(const UpdatePattern<T> &p, Buffer<std::int64_t> &lastUpdate, std::int64_t step)
{
    using Kind = typename UpdatePattern<T>::Kind;
    if (p.kind == Kind::All)
        std::fill(lastUpdate.begin(), lastUpdate.end(), step);
    else if (p.kind == Kind::Rows)
        for (auto r : p.rows)
            lastUpdate[at(r)] = step;
    else
        for (auto i : p.elements)
            lastUpdate[at(i / p.rowWidth)] = step;
}

template <class T>
void requireFinite(const UpdatePattern<T> &p, const NamedGradient &gradient, std::int64_t step)
{
    for (std::size_t k = 0; k < p.values.size(); ++k) {
        if (std::isfinite(p.values[k]))
            continue;
        std::int64_t linear = static_cast<std::int64_t>(k);
        if (p.kind == UpdatePattern<T>::Kind::Rows)
            linear = p.rows[k / at(p.rowWidth)] * p.rowWidth + static_cast<std::int64_t>(k % at(p.rowWidth));
        else if (p.kind == UpdatePattern<T>::Kind::Elements)
            linear = p.elements[k];
        throw InputError(gradient.name + ": gradient must be finite, but element (" + std::to_string(linear / p.rowWidth) + ", "
                         + std::to_string(linear % p.rowWidth) + ") is " + (std::isnan(p.values[k]) ? "nan" : "inf")
                         + " at step " + std::to_string(step) + "; no state was written");
    }
}

} // namespace

template <class T>
void applyStep(DenseTensor<T> &param, OptimizerState<T> &state, const OptimizerOptions &options, const UpdatePattern<T> &p)
{
    const auto &hp = options.hp;
    const bool firstStep = state.step == 0;
    const auto t = ++state.step;
    const double td = static_cast<double>(t);
    const bool lazy = options.semantics == Semantics::Lazy;
    T *w = param.values.data();
    auto run = [&](const auto &rule) { sweep(rule, p, state.lastUpdate, firstStep, lazy); };

    if (options.rule == Rule::Torch) {
        switch (options.kind) {
        case OptimizerKind::Adagrad: {
            const double clr = hp.lr / (1 + (td - 1) * hp.lrDecay);
            run(rules::AdagradTorch<T>{w, state.data("sum"), static_cast<T>(-clr), static_cast<T>(hp.eps),
                                       static_cast<T>(hp.weightDecay)});
            break;
        }
        case OptimizerKind::Adam: {
            const double bc1 = 1 - std::pow(hp.beta1, td);
            const double bc2 = 1 - std::pow(hp.beta2, td);
            if (lazy)
                run(rules::SparseAdamTorch<T>{w, state.data("exp_avg"), state.data("exp_avg_sq"),
                                              static_cast<T>(1 - hp.beta1), static_cast<T>(1 - hp.beta2),
                                              static_cast<T>(-(hp.lr * std::sqrt(bc2) / bc1)), static_cast<T>(hp.eps)});
            else
                run(rules::AdamTorch<T>{w, state.data("exp_avg"), state.data("exp_avg_sq"), static_cast<T>(hp.beta1),
                                        static_cast<T>(1 - hp.beta1), static_cast<T>(hp.beta2), static_cast<T>(1 - hp.beta2),
                                        static_cast<T>(-(hp.lr / bc1)), static_cast<T>(std::sqrt(bc2)),
                                        static_cast<T>(hp.eps), static_cast<T>(hp.weightDecay)});
            break;
        }
        case OptimizerKind::Sgd:
            run(rules::SgdTorch<T>{w, state.data("momentum_buffer"), static_cast<T>(-hp.lr), static_cast<T>(hp.momentum),
                                   static_cast<T>(1 - hp.dampening), static_cast<T>(hp.weightDecay), hp.nesterov});
            break;
        }
    } else {
        const T clip = static_cast<T>(hp.clipGradient), rescale = static_cast<T>(hp.rescaleGrad);
        switch (options.kind) {
        case OptimizerKind::Adagrad:
            if (lazy)
                run(rules::AdagradMxnetSparse<T>{w, state.data("sum"), static_cast<T>(hp.lr), static_cast<T>(hp.eps), rescale, clip});
            else
                run(rules::AdagradMxnetDense<T>{w, state.data("sum"), static_cast<T>(-hp.lr), static_cast<T>(hp.eps),
                                                static_cast<T>(hp.weightDecay), rescale, clip});
            break;
        case OptimizerKind::Adam: {
            // MXNet's Python optimizer folds bias correction into lr: lr *= sqrt(coef2) / coef1.
            const double coef1 = 1 - std::pow(hp.beta1, td);
            const double coef2 = 1 - std::pow(hp.beta2, td);
            run(rules::AdamMxnet<T>{w, state.data("exp_avg"), state.data("exp_avg_sq"), static_cast<T>(hp.beta1),
                                    static_cast<T>(hp.beta2), static_cast<T>(hp.lr * (std::sqrt(coef2) / coef1)),
                                    static_cast<T>(hp.eps), static_cast<T>(hp.weightDecay), rescale, clip});
            break;
        }
        case OptimizerKind::Sgd:
            run(rules::SgdMxnet<T>{w, state.data("momentum_buffer"), static_cast<T>(hp.lr), static_cast<T>(hp.weightDecay),
                                   static_cast<T>(hp.momentum), rescale, clip});
            break;
        }
    }
    markTouchedRows(p, state.lastUpdate, t);
}

template <class T>
void runSteps(DenseTensor<T> &param, OptimizerState<T> &state, const OptimizerOptions &options,
              std::span<const NamedGradient> gradients, const Tensor *mask, const ProgressCallback &progress)
{
    for (const auto &gradient : gradients)
        if (gradient.tensor.shape() != param.shape)
            throw errors::mustBe(gradient.name + ": gradient shape", "equal the parameter's shape " + shapeToString(param.shape),
                                 shapeToString(gradient.tensor.shape()));
    if (mask && options.semantics != Semantics::Masked)
        throw InputError("--mask applies to --semantics masked only, but the semantics is "
                         + std::string(semanticsName(options.semantics)));
    std::int64_t done = 0;
    for (const auto &gradient : gradients) {
        reportProgress(progress, done++, static_cast<std::int64_t>(gradients.size()));
        UpdatePattern<T> pattern;
        try {
            pattern = buildUpdatePattern<T>(gradient.tensor, options.semantics, mask);
        } catch (const Error &error) {
            rethrowWithContext(error, gradient.name);
        }
        requireFinite(pattern, gradient, state.step + 1);
        applyStep(param, state, options, pattern);
    }
    reportProgress(progress, done, static_cast<std::int64_t>(gradients.size()));
}

#define SPARSITY_INSTANTIATE(T)                                                                                      \
    template void applyStep<T>(DenseTensor<T> &, OptimizerState<T> &, const OptimizerOptions &, const UpdatePattern<T> &); \
    template void runSteps<T>(DenseTensor<T> &, OptimizerState<T> &, const OptimizerOptions &,                          \
                              std::span<const NamedGradient>, const Tensor *, const ProgressCallback &);
SPARSITY_INSTANTIATE(float)
SPARSITY_INSTANTIATE(double)
#undef SPARSITY_INSTANTIATE

} // namespace sparsity::core
