#pragma once
// withRule(): builds the update rule of one step (the per-step scalars: clr, bias
// corrections, MXNet's folded lr) and hands it to `f`. The CPU sweep and the CUDA kernels
// both go through it, so both run the same formulas with the same scalars. Plain C++17.
#include "core/optim/optimizer_options.h"
#include "core/optim/update_rules.h"

#include <cmath>
#include <cstdint>

namespace sparsity::core {

// The parameter and the state arrays a rule writes. state0: sum / exp_avg / momentum buffer;
// state1: exp_avg_sq. Host or device pointers alike.
template <class T>
struct StatePointers {
    T *param = nullptr;
    T *state0 = nullptr;
    T *state1 = nullptr;
};

// `step` is the step being taken (1 on the first).
template <class T, class F>
void withRule(const OptimizerOptions &options, std::int64_t step, StatePointers<T> p, F &&f)
{
    const auto &hp = options.hp;
    const double t = static_cast<double>(step);
    const bool lazy = options.semantics == Semantics::Lazy;
    const auto c = [](double v) { return static_cast<T>(v); };
    if (options.rule == Rule::Torch) {
        switch (options.kind) {
        case OptimizerKind::Adagrad:
            f(rules::AdagradTorch<T>{p.param, p.state0, c(-(hp.lr / (1 + (t - 1) * hp.lrDecay))), c(hp.eps), c(hp.weightDecay)});
            return;
        case OptimizerKind::Adam: {
            const double bc1 = 1 - std::pow(hp.beta1, t);
            const double bc2 = 1 - std::pow(hp.beta2, t);
            if (lazy)
                f(rules::SparseAdamTorch<T>{p.param, p.state0, p.state1, c(1 - hp.beta1), c(1 - hp.beta2),
                                            c(-(hp.lr * std::sqrt(bc2) / bc1)), c(hp.eps)});
            else
                f(rules::AdamTorch<T>{p.param, p.state0, p.state1, c(hp.beta1), c(1 - hp.beta1), c(hp.beta2), c(1 - hp.beta2),
                                      c(-(hp.lr / bc1)), c(std::sqrt(bc2)), c(hp.eps), c(hp.weightDecay)});
            return;
        }
        case OptimizerKind::Sgd:
            f(rules::SgdTorch<T>{p.param, p.state0, c(-hp.lr), c(hp.momentum), c(1 - hp.dampening), c(hp.weightDecay),
                                 hp.nesterov});
            return;
        }
        return;
    }
    const T clip = c(hp.clipGradient), rescale = c(hp.rescaleGrad);
    switch (options.kind) {
    case OptimizerKind::Adagrad:
        if (lazy)
            f(rules::AdagradMxnetSparse<T>{p.param, p.state0, c(hp.lr), c(hp.eps), rescale, clip});
        else
            f(rules::AdagradMxnetDense<T>{p.param, p.state0, c(-hp.lr), c(hp.eps), c(hp.weightDecay), rescale, clip});
        return;
    case OptimizerKind::Adam: {
        // MXNet's Python optimizer folds bias correction into lr: lr *= sqrt(coef2) / coef1.
        const double coef1 = 1 - std::pow(hp.beta1, t);
        const double coef2 = 1 - std::pow(hp.beta2, t);
        f(rules::AdamMxnet<T>{p.param, p.state0, p.state1, c(hp.beta1), c(hp.beta2), c(hp.lr * (std::sqrt(coef2) / coef1)),
                              c(hp.eps), c(hp.weightDecay), rescale, clip});
        return;
    }
    case OptimizerKind::Sgd:
        f(rules::SgdMxnet<T>{p.param, p.state0, c(hp.lr), c(hp.weightDecay), c(hp.momentum), rescale, clip});
        return;
    }
}

} // namespace sparsity::core
