#pragma once
// Per-element update formulas of every optimizer under each rule, in the reference's order of
// floating-point operations (docs/SEMANTICS.md, "Optimizer steps"). All arithmetic is in T (the
// parameter's dtype), as PyTorch and MXNet compute float32 tensors with float scalars.
//
// A rule is applied as rule(i, g, firstTouch): i is the element's linear index, g its
// gradient (already summed over duplicates), firstTouch whether this is the parameter's first
// step (a momentum buffer starts there, as PyTorch's per-parameter state does). Kernels decide *which* elements are updated (the
// semantics); rules decide *how*. This header is plain C++17 and host/device, so the CUDA kernels apply the very same formulas.
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define SPARSITY_HOST_DEVICE __host__ __device__
#else
#define SPARSITY_HOST_DEVICE
#endif

namespace sparsity::core::rules {

template <class T>
SPARSITY_HOST_DEVICE inline T clipValue(T x, T clip)
{
    return clip < T(0) ? x : (x > clip ? clip : (x < -clip ? -clip : x));
}

// torch.optim.Adagrad. Dense: g += wd*θ; S += g*g; θ += -clr * (g / (sqrt(S) + eps)).
// The sparse path computes the same values (S += g.pow(2); θ += (g / std) * -clr).
template <class T>
struct AdagradTorch {
    T *param;
    T *sum;
    T negClr, eps, weightDecay;
    SPARSITY_HOST_DEVICE void operator()(std::int64_t i, T g, bool) const
    {
        if (weightDecay != T(0))
            g = g + weightDecay * param[i];
        sum[i] = sum[i] + g * g;
        const T std = std::sqrt(sum[i]) + eps;
        param[i] = param[i] + negClr * (g / std);
    }
};

// torch.optim.Adam (dense formula; masked semantics applies it on the mask).
template <class T>
struct AdamTorch {
    T *param;
    T *expAvg;
    T *expAvgSq;
    T beta1, oneMinusBeta1, beta2, oneMinusBeta2, negStepSize, biasCorrection2Sqrt, eps, weightDecay;
    SPARSITY_HOST_DEVICE void operator()(std::int64_t i, T g, bool) const
    {
        if (weightDecay != T(0))
            g = g + weightDecay * param[i];
        expAvg[i] = expAvg[i] * beta1 + oneMinusBeta1 * g;
        expAvgSq[i] = expAvgSq[i] * beta2 + oneMinusBeta2 * g * g;
        const T denom = std::sqrt(expAvgSq[i]) / biasCorrection2Sqrt + eps;
        param[i] = param[i] + negStepSize * (expAvg[i] / denom);
    }
};

// torch.optim.SparseAdam (F.sparse_adam): m += (1-β1)(g - m); v += (1-β2)(g² - v);
// θ += ((m_old + Δm) / (sqrt(v_old + Δv) + eps)) * -lr·sqrt(bc2)/bc1.
template <class T>
struct SparseAdamTorch {
    T *param;
    T *expAvg;
    T *expAvgSq;
    T oneMinusBeta1, oneMinusBeta2, negStepSize, eps;
    SPARSITY_HOST_DEVICE void operator()(std::int64_t i, T g, bool) const
    {
        const T oldAvg = expAvg[i];
        const T avgUpdate = (g - oldAvg) * oneMinusBeta1;
        expAvg[i] = oldAvg + avgUpdate;
        const T oldSq = expAvgSq[i];
        const T sqUpdate = (g * g - oldSq) * oneMinusBeta2;
        expAvgSq[i] = oldSq + sqUpdate;
        const T numer = avgUpdate + oldAvg;
        const T denom = std::sqrt(sqUpdate + oldSq) + eps;
        param[i] = param[i] + (numer / denom) * negStepSize;
    }
};

// torch.optim.SGD. buf <- d on the first step, else μ·buf + (1-dampening)·d (a lazy step's
// pattern includes every row the sparse buffer holds: update_pattern.h).
template <class T>
struct SgdTorch {
    T *param;
    T *momentumBuffer; // null when momentum == 0
    T negLr, momentum, oneMinusDampening, weightDecay;
    bool nesterov;
    SPARSITY_HOST_DEVICE void operator()(std::int64_t i, T g, bool firstTouch) const
    {
        T d = g;
        if (weightDecay != T(0))
            d = d + weightDecay * param[i];
        if (momentumBuffer) {
            T &buf = momentumBuffer[i];
            buf = firstTouch ? d : buf * momentum + oneMinusDampening * d;
            d = nesterov ? d + momentum * buf : buf;
        }
        param[i] = param[i] + negLr * d;
    }
};

// MXNet sgd_update / sgd_mom_update (lazy and standard share the per-row formula).
template <class T>
struct SgdMxnet {
    T *param;
    T *mom; // null without momentum
    T lr, weightDecay, momentum, rescale, clip;
    SPARSITY_HOST_DEVICE void operator()(std::int64_t i, T g, bool) const
    {
        const T rescaled = clipValue(rescale * g, clip);
        if (mom) {
            mom[i] = momentum * mom[i] - lr * weightDecay * param[i] - lr * rescaled;
            param[i] = param[i] + mom[i];
        } else {
            param[i] = (T(1) - lr * weightDecay) * param[i] - lr * rescaled;
        }
    }
};

// MXNet adam_update: weight decay inside the clip, bias correction folded into lr.
template <class T>
struct AdamMxnet {
    T *param;
    T *mean;
    T *var;
    T beta1, beta2, lrT, eps, weightDecay, rescale, clip;
    SPARSITY_HOST_DEVICE void operator()(std::int64_t i, T g, bool) const
    {
        const T rescaled = clipValue(g * rescale + param[i] * weightDecay, clip);
        mean[i] = beta1 * mean[i] + (T(1) - beta1) * rescaled;
        var[i] = beta2 * var[i] + (T(1) - beta2) * rescaled * rescaled;
        param[i] = param[i] - lrT * mean[i] / (std::sqrt(var[i]) + eps);
    }
};

// MXNet AdaGrad. Sparse kernel (lazy): ε inside the square root, no weight decay.
template <class T>
struct AdagradMxnetSparse {
    T *param;
    T *history;
    T lr, eps, rescale, clip;
    SPARSITY_HOST_DEVICE void operator()(std::int64_t i, T g, bool) const
    {
        const T rescaled = clipValue(g * rescale, clip);
        history[i] = history[i] + rescaled * rescaled;
        param[i] = param[i] - lr * rescaled / std::sqrt(history[i] + eps);
    }
};

// MXNet AdaGrad, the Python optimizer's dense path: weight += (g/sqrt(h+eps) + wd·weight)·-lr.
template <class T>
struct AdagradMxnetDense {
    T *param;
    T *history;
    T negLr, eps, weightDecay, rescale, clip;
    SPARSITY_HOST_DEVICE void operator()(std::int64_t i, T g, bool) const
    {
        const T rescaled = clipValue(g * rescale, clip);
        history[i] = history[i] + rescaled * rescaled;
        const T div = rescaled / std::sqrt(history[i] + eps);
        param[i] = param[i] + (div + param[i] * weightDecay) * negLr;
    }
};

} // namespace sparsity::core::rules
