#include "core/masked/reduction_kernels.h"

#include "core/util/errors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <omp.h>

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

inline double combine(ReduceOp op, double acc, double v)
{
    switch (op) {
    case ReduceOp::Amax: return maximumOf(acc, v);
    case ReduceOp::Amin: return minimumOf(acc, v);
    case ReduceOp::Norm: return acc + v * v;
    default: return acc + v;
    }
}

// Folds slab elements [first, last) into `acc`; element e of the slab belongs to output
// e % inner. `base` is the slab's offset in the flat tensor.
template <class T>
void accumulateRange(const ElementwiseProgram<T> &program, typename ElementwiseProgram<T>::Scratch &scratch,
                     const Mask *mask, ReduceOp op, std::int64_t base, std::int64_t first, std::int64_t last,
                     std::int64_t inner, Accumulators &acc)
{
    for (std::int64_t begin = first; begin < last; begin += kBlock) {
        const int count = static_cast<int>(std::min<std::int64_t>(kBlock, last - begin));
        const T *v = program.evaluateBlock(base + begin, count, scratch);
        const std::uint8_t *m = mask ? mask->data() + base + begin : nullptr;
        if (inner == 1 && (op == ReduceOp::Sum || op == ReduceOp::Mean || op == ReduceOp::Norm)) {
            // The hot case (all dims, or the last dim): a vectorised sum.
            double s = 0.0;
            std::int64_t c = 0;
            if (m) {
#pragma omp simd reduction(+ : s, c)
                for (int i = 0; i < count; ++i) {
                    const double x = m[i] ? static_cast<double>(v[i]) : 0.0;
                    s += op == ReduceOp::Norm ? x * x : x;
                    c += m[i] != 0;
                }
            } else {
#pragma omp simd reduction(+ : s)
                for (int i = 0; i < count; ++i) {
                    const double x = static_cast<double>(v[i]);
                    s += op == ReduceOp::Norm ? x * x : x;
                }
                c = count;
            }
            acc.value[0] += s;
            acc.count[0] += c;
            continue;
        }
        std::int64_t slot = begin % inner;
        for (int i = 0; i < count; ++i) {
            if (!m || m[i]) {
                acc.value[at(slot)] = combine(op, acc.value[at(slot)], static_cast<double>(v[i]));
                ++acc.count[at(slot)];
            }
            if (++slot == inner)
                slot = 0;
        }
    }
}

void merge(ReduceOp op, Accumulators &into, const Accumulators &from)
{
    for (std::size_t i = 0; i < into.value.size(); ++i) {
        into.count[i] += from.count[i];
        into.value[i] = (op == ReduceOp::Amax || op == ReduceOp::Amin) ? combine(op, into.value[i], from.value[i])
                                                                        : into.value[i] + from.value[i];
    }
}

// Writes the slab's `inner` results at out[offset...].
template <class T>
void finish(ReduceOp op, const Accumulators &acc, bool masked, T *out, std::uint8_t *outMask)
{
    for (std::size_t i = 0; i < acc.value.size(); ++i) {
        const auto count = acc.count[i];
        double result = acc.value[i];
        if (op == ReduceOp::Mean)
            result = count > 0 ? result / static_cast<double>(count) : std::numeric_limits<double>::quiet_NaN();
        else if (op == ReduceOp::Norm)
            result = std::sqrt(result);
        if (masked) {
            outMask[i] = count > 0;
            if (count == 0)
                result = 0.0;   // unspecified: the data means nothing
        }
        out[i] = static_cast<T>(result);
    }
}

} // namespace

std::optional<ReduceOp> reduceOpNamed(std::string_view name)
{
    if (name == "sum") return ReduceOp::Sum;
    if (name == "mean") return ReduceOp::Mean;
    if (name == "amax") return ReduceOp::Amax;
    if (name == "amin") return ReduceOp::Amin;
    if (name == "norm") return ReduceOp::Norm;
    return std::nullopt;
}

template <class T>
MaskedValue<T> reduce(const ElementwiseProgram<T> &program, const Shape &shape, const Mask *mask, ReduceOp op,
                      std::optional<int> dim)
{
    // The tensor as [outer, reduced, inner]; each outer index is a contiguous slab.
    std::int64_t outer = 1, reduced = numel(shape), inner = 1;
    Shape outShape;
    if (dim) {
        const auto d = static_cast<std::size_t>(*dim);
        outer = numel(shape, 0, d);
        reduced = shape[d];
        inner = numel(shape, d + 1, shape.size());
        outShape = shape;
        outShape.erase(outShape.begin() + *dim);
    }
    MaskedValue<T> out;
    out.shape = outShape;
    out.values.resize(at(outer * inner));
    Mask outMask(mask ? at(outer * inner) : 0);
    const std::int64_t slab = reduced * inner;
    if (!mask && reduced == 0 && outer * inner > 0 && (op == ReduceOp::Amax || op == ReduceOp::Amin))
        throw InputError(std::string(op == ReduceOp::Amax ? "amax" : "amin")
                         + " over zero elements has no value (shape " + shapeToString(shape) + ")");

    const int threads = omp_get_max_threads();
    if (outer >= threads) {
        // Enough slabs to keep every thread busy: one slab per task.
#pragma omp parallel
        {
            auto scratch = program.makeScratch();
#pragma omp for schedule(dynamic, 1)
            for (std::int64_t o = 0; o < outer; ++o) {
                Accumulators acc(inner, identityOf(op));
                accumulateRange(program, scratch, mask, op, o * slab, 0, slab, inner, acc);
                finish(op, acc, mask != nullptr, out.values.data() + o * inner,
                       mask ? outMask.data() + o * inner : nullptr);
            }
        }
    } else {
        // Few slabs (a full reduction, or dim 0): threads split each slab, then partial results
        // merge in thread order, so the result does not depend on scheduling.
        for (std::int64_t o = 0; o < outer; ++o) {
            std::vector<Accumulators> partial(at(threads), Accumulators(inner, identityOf(op)));
            const std::int64_t blocks = (slab + kBlock - 1) / kBlock;
            const std::int64_t per = (blocks + threads - 1) / threads;
#pragma omp parallel for schedule(static, 1)
            for (int t = 0; t < threads; ++t) {
                auto scratch = program.makeScratch();
                const std::int64_t first = std::min(slab, t * per * kBlock);
                const std::int64_t last = std::min(slab, (t + 1) * per * kBlock);
                accumulateRange(program, scratch, mask, op, o * slab, first, last, inner, partial[at(t)]);
            }
            for (int t = 1; t < threads; ++t)
                merge(op, partial[0], partial[at(t)]);
            finish(op, partial[0], mask != nullptr, out.values.data() + o * inner,
                   mask ? outMask.data() + o * inner : nullptr);
        }
    }
    if (mask) {
        out.kind = ValueKind::Masked;
        out.mask = std::make_shared<const Mask>(std::move(outMask));
    }
    return out;
}

template MaskedValue<float> reduce<float>(const ElementwiseProgram<float> &, const Shape &, const Mask *, ReduceOp,
                                          std::optional<int>);
template MaskedValue<double> reduce<double>(const ElementwiseProgram<double> &, const Shape &, const Mask *, ReduceOp,
                                            std::optional<int>);

} // namespace sparsity::core
