#include "core/optim/optimizer_step.h"

#include "core/optim/rule_dispatch.h"
#include "core/util/errors.h"

#include <algorithm>
#include <cmath>
#include <omp.h>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Runs `rule` over the pattern. The semantics only chose the elements; the rule is the
// formula. A momentum buffer starts on the parameter's first step, whatever the semantics (a
// lazy one's rows new to it later start from 0, as PyTorch's sparse buffer does).
// A row's lines of the parameter and its states, asked for ahead of the row being stepped: the
// rows of a sparse gradient lie anywhere in the block, where no hardware prefetcher follows.
template <class T>
void prefetchRow(const StatePointers<T> &at, std::int64_t first, std::int64_t width)
{
    constexpr std::int64_t kLine = 64 / static_cast<std::int64_t>(sizeof(T));
    for (T *base : {at.param, at.state0, at.state1})
        if (base)
            for (std::int64_t j = 0; j < width; j += kLine)
                __builtin_prefetch(base + first + j, 1);
}

template <class T, class Rule>
void sweep(const Rule &rule, const UpdatePattern<T> &p, const StatePointers<T> &pointers, bool firstStep)
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
        // Rows asked for ahead: 8 took the resumed lazy Adagrad bench's 5 steps of 10,000 rows of
        // a 1M x 64 table from 10-13 ms to 5-8 ms (4: 7-10 ms; 16: no better than 8).
        constexpr std::int64_t kAhead = 8;
#pragma omp parallel for schedule(static)
        for (std::int64_t k = 0; k < rows; ++k) {
            if (k + kAhead < rows)
                prefetchRow(pointers, p.rows[at(k + kAhead)] * width, width);
            const auto r = p.rows[at(k)];
            const T *g = p.values.data() + k * width;
#pragma omp simd
            for (std::int64_t j = 0; j < width; ++j)
                rule(r * width + j, g[j], firstStep);
        }
        break;
    }
    case Kind::Elements: {
        const auto n = static_cast<std::int64_t>(p.elements.size());
#pragma omp parallel for schedule(static)
        for (std::int64_t k = 0; k < n; ++k) {
            rule(p.elements[at(k)], p.values[at(k)], firstStep);
        }
        break;
    }
    }
}

template <class T>
void markTouchedRows(const UpdatePattern<T> &p, Buffer<std::int64_t> &lastUpdate, std::int64_t step)
{
    using Kind = typename UpdatePattern<T>::Kind;
    if (p.kind == Kind::All) {
        std::fill(lastUpdate.begin(), lastUpdate.end(), step);
    } else if (p.kind == Kind::Rows) {
        for (auto r : p.rows)
            lastUpdate[at(r)] = step;
    } else {
        // Elements ascend, so their rows do: each thread marks the rows of its run of them, a
        // row at a time, and leaves a row its run starts inside to the run before.
        const auto n = static_cast<std::int64_t>(p.elements.size());
        const auto width = p.rowWidth;
#pragma omp parallel
        {
            const auto threads = static_cast<std::int64_t>(omp_get_num_threads());
            const auto me = static_cast<std::int64_t>(omp_get_thread_num());
            auto k = n * me / threads;
            const auto end = n * (me + 1) / threads;
            if (k > 0 && k < end) // skip the row the run before ends in
                for (const auto shared = p.elements[at(k - 1)] / width; k < end && p.elements[at(k)] / width == shared;)
                    ++k;
            while (k < end) {
                const auto row = p.elements[at(k)] / width;
                lastUpdate[at(row)] = step;
                k = std::lower_bound(p.elements.begin() + k, p.elements.begin() + end, (row + 1) * width) - p.elements.begin();
            }
        }
    }
}

// Whether every gradient value of the pattern is finite: a parallel pass, before the serial
// search for the first that is not.
template <class T>
bool allFinite(const UpdatePattern<T> &p)
{
    const auto n = static_cast<std::int64_t>(p.values.size());
    bool finite = true;
#pragma omp parallel for simd reduction(&& : finite) schedule(static)
    for (std::int64_t k = 0; k < n; ++k)
        finite = finite && std::isfinite(p.values[at(k)]);
    return finite;
}

template <class T>
void requireFinite(const UpdatePattern<T> &p, const std::string &gradient, std::int64_t step)
{
    if (allFinite(p))
        return;
    for (std::size_t k = 0; k < p.values.size(); ++k) {
        if (std::isfinite(p.values[k]))
            continue;
        std::int64_t linear = static_cast<std::int64_t>(k);
        if (p.kind == UpdatePattern<T>::Kind::Rows)
            linear = p.rows[k / at(p.rowWidth)] * p.rowWidth + static_cast<std::int64_t>(k % at(p.rowWidth));
        else if (p.kind == UpdatePattern<T>::Kind::Elements)
            linear = p.elements[k];
        throw InputError(gradient + ": gradient must be finite, but element (" + std::to_string(p.firstRow + linear / p.rowWidth)
                         + ", " + std::to_string(linear % p.rowWidth) + ") is " + (std::isnan(p.values[k]) ? "nan" : "inf")
                         + " at step " + std::to_string(step) + "; no state was written");
    }
}

} // namespace

template <class T>
StatePointers<T> statePointers(DenseTensor<T> &param, OptimizerState<T> &state)
{
    StatePointers<T> p{param.values.data(), nullptr, nullptr};
    if (!state.buffers.empty())
        p.state0 = state.buffers[0].value.values.data();
    if (state.buffers.size() > 1)
        p.state1 = state.buffers[1].value.values.data();
    return p;
}

template <class T>
void applyStep(DenseTensor<T> &param, OptimizerState<T> &state, const OptimizerOptions &options, const UpdatePattern<T> &p)
{
    const bool firstStep = state.step == 0;
    const auto t = ++state.step;
    const auto pointers = statePointers(param, state);
    withRule(options, t, pointers, [&](const auto &rule) { sweep(rule, p, pointers, firstStep); });
    markTouchedRows(p, state.lastUpdate, t);
}

void requireGradientShape(const std::string &gradient, const Shape &gradientShape, const Shape &paramShape)
{
    if (gradientShape != paramShape)
        throw errors::mustBe(gradient + ": gradient shape", "equal the parameter's shape " + shapeToString(paramShape),
                             shapeToString(gradientShape));
}

void requireMaskFitsSemantics(bool hasMask, const OptimizerOptions &options)
{
    if (hasMask && options.semantics != Semantics::Masked)
        throw InputError("a mask applies to masked semantics only, but the semantics is "
                         + std::string(semanticsName(options.semantics)));
}

void validateStepInputs(const Shape &paramShape,
                        const OptimizerOptions &options,
                        std::span<const NamedGradient> gradients,
                        const Tensor *mask)
{
    for (const auto &gradient : gradients)
        requireGradientShape(gradient.name, gradient.tensor.shape(), paramShape);
    requireMaskFitsSemantics(mask != nullptr, options);
}

template <class T>
UpdatePattern<T> checkedPattern(
    const NamedGradient &gradient, const OptimizerOptions &options, const Tensor *mask, std::int64_t step, std::int64_t firstRow)
{
    UpdatePattern<T> pattern;
    try {
        pattern = buildUpdatePattern<T>(gradient.tensor, options.semantics, mask);
    } catch (const Error &error) {
        rethrowWithContext(error, gradient.name);
    }
    pattern.firstRow = firstRow;
    requireFinite(pattern, gradient.name, step);
    return pattern;
}

template <class T>
UpdatePattern<T> checkedPatternInRows(const UpdatePattern<T> &source,
                                      const std::string &gradient,
                                      const OptimizerOptions &options,
                                      const Tensor *mask,
                                      std::int64_t step,
                                      RowRange rows,
                                      UpdatePattern<T> recycled)
{
    auto pattern =
        filledPattern(patternInRows(source, rows), options.semantics, mask, rows.count() * source.rowWidth, std::move(recycled));
    requireFinite(pattern, gradient, step);
    return pattern;
}

template <class T>
void runSteps(DenseTensor<T> &param,
              OptimizerState<T> &state,
              const OptimizerOptions &options,
              std::span<const NamedGradient> gradients,
              const Tensor *mask,
              const ProgressCallback &progress)
{
    validateStepInputs(param.shape, options, gradients, mask);
    const bool torchSparseSgd = widensToTorchSparseSgd(options);
    auto bufferRows = torchSparseSgd ? rowsHeldByBuffer(state.lastUpdate) : std::vector<char>{};
    std::int64_t done = 0;
    for (const auto &gradient : gradients) {
        reportProgress(progress, done++, static_cast<std::int64_t>(gradients.size()));
        auto pattern = checkedPattern<T>(gradient, options, mask, state.step + 1);
        if (torchSparseSgd)
            pattern = torchSparseSgdPattern(std::move(pattern), bufferRows);
        applyStep(param, state, options, pattern);
    }
    reportProgress(progress, done, static_cast<std::int64_t>(gradients.size()));
}

#define SPARSITY_INSTANTIATE(T)                                                                                                  \
    template void applyStep<T>(DenseTensor<T> &, OptimizerState<T> &, const OptimizerOptions &, const UpdatePattern<T> &);       \
    template StatePointers<T> statePointers<T>(DenseTensor<T> &, OptimizerState<T> &);                                           \
    template UpdatePattern<T> checkedPattern<T>(const NamedGradient &, const OptimizerOptions &, const Tensor *, std::int64_t,   \
                                                std::int64_t);                                                                   \
    template UpdatePattern<T> checkedPatternInRows<T>(const UpdatePattern<T> &, const std::string &, const OptimizerOptions &,   \
                                                      const Tensor *, std::int64_t, RowRange, UpdatePattern<T>);                 \
    template void runSteps<T>(DenseTensor<T> &, OptimizerState<T> &, const OptimizerOptions &, std::span<const NamedGradient>,   \
                              const Tensor *, const ProgressCallback &);
SPARSITY_INSTANTIATE(float)
SPARSITY_INSTANTIATE(double)
#undef SPARSITY_INSTANTIATE

} // namespace sparsity::core
