#include "core/masked/reduction_kernels.h"

#include "core/masked/mask_select.h"
#include "core/util/cpu_clones.h"
#include "core/util/errors.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <omp.h>
#include <type_traits>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Running state of `inner` independent reductions (one per output element of a slab).
struct Accumulators {
    std::vector<double> value;
    std::vector<std::int64_t> count;

    Accumulators(std::int64_t inner, double identity) : value(at(inner), identity), count(at(inner), 0) {}
};

double identityOf(ReduceOp op)
{
    if (op == ReduceOp::Amax)
        return -std::numeric_limits<double>::infinity();
    if (op == ReduceOp::Amin)
        return std::numeric_limits<double>::infinity();
    return 0.0;
}

// acc[k] = op(acc[k], w[k]) for k < n: one run of consecutive output slots.
template <class T>
SPARSITY_ALWAYS_INLINE void combineRunLoops(ReduceOp op, double *acc, const T *w, int n)
{
    switch (op) {
    case ReduceOp::Amax:
        for (int k = 0; k < n; ++k)
            acc[k] = maximumOf(acc[k], static_cast<double>(w[k]));
        return;
    case ReduceOp::Amin:
        for (int k = 0; k < n; ++k)
            acc[k] = minimumOf(acc[k], static_cast<double>(w[k]));
        return;
    case ReduceOp::Norm:
#pragma omp simd
        for (int k = 0; k < n; ++k)
            acc[k] += static_cast<double>(w[k]) * static_cast<double>(w[k]);
        return;
    default:
#pragma omp simd
        for (int k = 0; k < n; ++k)
            acc[k] += static_cast<double>(w[k]);
        return;
    }
}

// op over w[0..n) into one value.
template <class T>
SPARSITY_ALWAYS_INLINE double reduceRunLoops(ReduceOp op, double acc, const T *w, int n)
{
    if (op == ReduceOp::Amax || op == ReduceOp::Amin) {
        for (int k = 0; k < n; ++k)
            acc = op == ReduceOp::Amax ? maximumOf(acc, static_cast<double>(w[k])) : minimumOf(acc, static_cast<double>(w[k]));
        return acc;
    }
    double s = 0.0;
    if (op == ReduceOp::Norm) {
#pragma omp simd reduction(+ : s)
        for (int k = 0; k < n; ++k)
            s += static_cast<double>(w[k]) * static_cast<double>(w[k]);
    } else {
#pragma omp simd reduction(+ : s)
        for (int k = 0; k < n; ++k)
            s += static_cast<double>(w[k]);
    }
    return acc + s;
}

// Sum (or sum of squares) of the specified w[k]: the mask select fused into the sum, so the
// hottest reduction makes one pass over the block instead of two.
template <class T>
SPARSITY_ALWAYS_INLINE double maskedSumLoops(bool squares, const T *w, const std::uint8_t *m, int n)
{
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    double s = 0.0;
    if (squares) {
#pragma omp simd reduction(+ : s)
        for (int k = 0; k < n; ++k) {
            const auto v =
                static_cast<double>(std::bit_cast<T>(std::bit_cast<Bits>(w[k]) & (Bits{0} - static_cast<Bits>(m[k] != 0))));
            s += v * v;
        }
    } else {
#pragma omp simd reduction(+ : s)
        for (int k = 0; k < n; ++k)
            s += static_cast<double>(std::bit_cast<T>(std::bit_cast<Bits>(w[k]) & (Bits{0} - static_cast<Bits>(m[k] != 0))));
    }
    return s;
}

SPARSITY_CPU_CLONES double maskedSum(bool squares, const float *w, const std::uint8_t *m, int n)
{
    return maskedSumLoops(squares, w, m, n);
}
SPARSITY_CPU_CLONES double maskedSum(bool squares, const double *w, const std::uint8_t *m, int n)
{
    return maskedSumLoops(squares, w, m, n);
}
SPARSITY_CPU_CLONES void combineRun(ReduceOp op, double *acc, const float *w, int n) { combineRunLoops(op, acc, w, n); }
SPARSITY_CPU_CLONES void combineRun(ReduceOp op, double *acc, const double *w, int n) { combineRunLoops(op, acc, w, n); }
SPARSITY_CPU_CLONES double reduceRun(ReduceOp op, double acc, const float *w, int n) { return reduceRunLoops(op, acc, w, n); }
SPARSITY_CPU_CLONES double reduceRun(ReduceOp op, double acc, const double *w, int n) { return reduceRunLoops(op, acc, w, n); }

// Folds slab elements [first, last) into `acc`; element e of the slab belongs to output
// e % inner. `base` is the slab's offset in the flat tensor.
template <class T>
void accumulateRange(const ElementwiseProgram<T> &program,
                     typename ElementwiseProgram<T>::Scratch &scratch,
                     const Mask *mask,
                     ReduceOp op,
                     std::int64_t base,
                     std::int64_t first,
                     std::int64_t last,
                     std::int64_t inner,
                     Accumulators &acc,
                     T *selected)
{
    const T identity = static_cast<T>(identityOf(op));
    for (std::int64_t begin = first; begin < last; begin += kBlock) {
        const int count = static_cast<int>(std::min<std::int64_t>(kBlock, last - begin));
        const T *w = program.evaluateBlock(base + begin, count, scratch);
        const std::uint8_t *m = mask ? mask->data() + base + begin : nullptr;
        if (m && inner == 1 && op != ReduceOp::Amax && op != ReduceOp::Amin) {
            acc.value[0] += maskedSum(op == ReduceOp::Norm, w, m, count);
            acc.count[0] += countSpecified(m, count);
            continue;
        }
        if (m) {
            selectSpecified(w, m, count, identity, selected);
            w = selected;
        }
        if (inner == 1) {
            acc.value[0] = reduceRun(op, acc.value[0], w, count);
            acc.count[0] += m ? countSpecified(m, count) : count;
            continue;
        }
        // Runs of consecutive slots: the block wraps around `inner` at most count/inner times.
        for (int i = 0; i < count;) {
            const std::int64_t slot = (begin + i) % inner;
            const int run = static_cast<int>(std::min<std::int64_t>(count - i, inner - slot));
            combineRun(op, acc.value.data() + slot, w + i, run);
            std::int64_t *counts = acc.count.data() + slot;
            if (m) {
#pragma omp simd
                for (int k = 0; k < run; ++k)
                    counts[k] += m[i + k] != 0;
            } else {
#pragma omp simd
                for (int k = 0; k < run; ++k)
                    ++counts[k];
            }
            i += run;
        }
    }
}

void merge(ReduceOp op, Accumulators &into, const Accumulators &from)
{
    for (std::size_t i = 0; i < into.value.size(); ++i) {
        into.count[i] += from.count[i];
        if (op == ReduceOp::Amax)
            into.value[i] = maximumOf(into.value[i], from.value[i]);
        else if (op == ReduceOp::Amin)
            into.value[i] = minimumOf(into.value[i], from.value[i]);
        else
            into.value[i] += from.value[i];
    }
}

// Writes the slab's `inner` results at out[offset...].
template <class T>
void finish(ReduceOp op, const Accumulators &acc, bool masked, T *out, std::uint8_t *outMask)
{
    for (std::size_t i = 0; i < acc.value.size(); ++i) {
        const auto count = acc.count[i];
        double result = finishedValue(op, acc.value[i], count);
        if (masked) {
            outMask[i] = count > 0;
            if (count == 0)
                result = 0.0; // unspecified: the data means nothing
        }
        out[i] = static_cast<T>(result);
    }
}

} // namespace

double finishedValue(ReduceOp op, double accumulator, std::int64_t count)
{
    if (op == ReduceOp::Mean)
        return count > 0 ? accumulator / static_cast<double>(count) : std::numeric_limits<double>::quiet_NaN();
    if (op == ReduceOp::Norm)
        return std::sqrt(accumulator);
    return accumulator;
}

ReductionGeometry reductionGeometry(const Shape &shape, std::optional<int> dim)
{
    ReductionGeometry g;
    g.reduced = numel(shape);
    if (dim) {
        const auto d = static_cast<std::size_t>(*dim);
        g.outer = numel(shape, 0, d);
        g.reduced = shape[d];
        g.inner = numel(shape, d + 1, shape.size());
        g.resultShape = shape;
        g.resultShape.erase(g.resultShape.begin() + *dim);
    }
    return g;
}

std::optional<ReduceOp> reduceOpNamed(std::string_view name)
{
    if (name == "sum")
        return ReduceOp::Sum;
    if (name == "mean")
        return ReduceOp::Mean;
    if (name == "amax")
        return ReduceOp::Amax;
    if (name == "amin")
        return ReduceOp::Amin;
    if (name == "norm")
        return ReduceOp::Norm;
    return std::nullopt;
}

template <class T>
MaskedValue<T>
reduce(const ElementwiseProgram<T> &program, const Shape &shape, const Mask *mask, ReduceOp op, std::optional<int> dim)
{
    // The tensor as [outer, reduced, inner]; each outer index is a contiguous slab.
    const auto geometry = reductionGeometry(shape, dim);
    const std::int64_t outer = geometry.outer, reduced = geometry.reduced, inner = geometry.inner;
    MaskedValue<T> out;
    out.shape = geometry.resultShape;
    out.values.resize(at(outer * inner));
    Mask outMask(mask ? at(outer * inner) : 0);
    const std::int64_t slab = reduced * inner;
    if (!mask && reduced == 0 && outer * inner > 0 && (op == ReduceOp::Amax || op == ReduceOp::Amin))
        throw InputError(std::string(op == ReduceOp::Amax ? "amax" : "amin") + " over zero elements has no value (shape "
                         + shapeToString(shape) + ")");

    const bool parallel = numel(shape) >= kParallelThreshold;
    const int threads = parallel ? omp_get_max_threads() : 1;
    if (outer >= threads) {
        // Enough slabs to keep every thread busy: one slab per task.
#pragma omp parallel if (parallel)
        {
            auto scratch = program.makeScratch();
            std::vector<T> selected(kBlock);
#pragma omp for schedule(dynamic, 1)
            for (std::int64_t o = 0; o < outer; ++o) {
                Accumulators acc(inner, identityOf(op));
                accumulateRange(program, scratch, mask, op, o * slab, 0, slab, inner, acc, selected.data());
                finish(op, acc, mask != nullptr, out.values.data() + o * inner, mask ? outMask.data() + o * inner : nullptr);
            }
        }
    } else {
        // Few slabs (a full reduction, or dim 0): threads split each slab, then partial results
        // merge in thread order, so the result does not depend on scheduling.
        for (std::int64_t o = 0; o < outer; ++o) {
            std::vector<Accumulators> partial(at(threads), Accumulators(inner, identityOf(op)));
            const std::int64_t blocks = (slab + kBlock - 1) / kBlock;
            const std::int64_t per = (blocks + threads - 1) / threads;
#pragma omp parallel for schedule(static, 1) if (parallel)
            for (int t = 0; t < threads; ++t) {
                auto scratch = program.makeScratch();
                std::vector<T> selected(kBlock);
                const std::int64_t first = std::min(slab, t * per * kBlock);
                const std::int64_t last = std::min(slab, (t + 1) * per * kBlock);
                accumulateRange(program, scratch, mask, op, o * slab, first, last, inner, partial[at(t)], selected.data());
            }
            for (int t = 1; t < threads; ++t)
                merge(op, partial[0], partial[at(t)]);
            finish(op, partial[0], mask != nullptr, out.values.data() + o * inner, mask ? outMask.data() + o * inner : nullptr);
        }
    }
    if (mask) {
        out.kind = ValueKind::Masked;
        out.mask = std::make_shared<const Mask>(std::move(outMask));
    }
    return out;
}

template MaskedValue<float>
reduce<float>(const ElementwiseProgram<float> &, const Shape &, const Mask *, ReduceOp, std::optional<int>);
template MaskedValue<double>
reduce<double>(const ElementwiseProgram<double> &, const Shape &, const Mask *, ReduceOp, std::optional<int>);

} // namespace sparsity::core
