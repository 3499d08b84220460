#include "core/masked/reduction_kernels.h"

#include "core/masked/mask_select.h"
#include "core/util/cpu_clones.h"
#include "core/util/errors.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <omp.h>
#include <type_traits>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

using Accumulators = ReductionAccumulators;

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

// Where a slab's tiles end: every `tile` elements, and never across a multiple of
// `rowLength` (0: no such limit), so tiles of a reduction over all dims never straddle two
// rows of dim 0.
struct TileGrid {
    std::int64_t tile = kReductionTile;
    std::int64_t rowLength = 0;

    std::int64_t tileEnd(std::int64_t begin, std::int64_t slabEnd) const
    {
        std::int64_t end = std::min(slabEnd, begin + tile);
        if (rowLength > 0)
            end = std::min(end, (begin / rowLength + 1) * rowLength);
        return end;
    }
};

std::int64_t rowLengthOf(const Shape &shape) { return shape.empty() ? 1 : numel(shape, 1, shape.size()); }

TileGrid tileGrid(const Shape &shape, std::optional<int> dim, std::int64_t inner)
{
    if (!dim && rowLengthOf(shape) > kReductionTile)
        return {kReductionTile, rowLengthOf(shape)};
    if (!dim)
        return {reductionTileRows(shape) * std::max<std::int64_t>(1, rowLengthOf(shape)), 0};
    // Whole runs of `inner`: a tile's partial then touches every output slot it merges.
    return {std::max<std::int64_t>(1, kReductionTile / std::max<std::int64_t>(1, inner)) * std::max<std::int64_t>(1, inner), 0};
}

// Computes the partial result of every tile of slab elements [0, slab) (at `base` in the
// program's elements) and hands each to `take` in tile order; threads share the tiles in waves.
template <class T, class Take>
void foldSlabTiles(const ElementwiseProgram<T> &program,
                   const Mask *mask,
                   ReduceOp op,
                   std::int64_t base,
                   std::int64_t slab,
                   std::int64_t inner,
                   const TileGrid &grid,
                   bool parallel,
                   Take &&take)
{
    std::vector<std::pair<std::int64_t, std::int64_t>> tiles;
    for (std::int64_t begin = 0; begin < slab;) {
        const std::int64_t end = grid.tileEnd(begin, slab);
        tiles.emplace_back(begin, end);
        begin = end;
    }
    const int threads = parallel ? omp_get_max_threads() : 1;
    const std::size_t wave = std::min(tiles.size(), at(4 * threads));
    std::vector<Accumulators> partial(wave, Accumulators(inner, op));
    for (std::size_t first = 0; first < tiles.size(); first += wave) {
        const auto count = static_cast<std::int64_t>(std::min(wave, tiles.size() - first));
#pragma omp parallel if (parallel && count > 1)
        {
            auto scratch = program.makeScratch();
            std::vector<T> selected(kBlock);
#pragma omp for schedule(dynamic, 1)
            for (std::int64_t i = 0; i < count; ++i) {
                const auto [begin, end] = tiles[first + at(i)];
                partial[at(i)].reset(op);
                accumulateRange(program, scratch, mask, op, base, begin, end, inner, partial[at(i)], selected.data());
            }
        }
        for (std::int64_t i = 0; i < count; ++i)
            take(partial[at(i)]);
    }
}

// amax and amin have no identity: over zero plain elements they have no value.
void requireIdentityOrElements(ReduceOp op, bool masked, bool nothingReduced, const Shape &shape)
{
    if (!masked && nothingReduced && (op == ReduceOp::Amax || op == ReduceOp::Amin))
        throw InputError(std::string(op == ReduceOp::Amax ? "amax" : "amin") + " over zero elements has no value (shape "
                         + shapeToString(shape) + ")");
}

// Writes the slab's `inner` results at out[offset...].
template <class T>
void finishSlab(ReduceOp op, const Accumulators &acc, bool masked, T *out, std::uint8_t *outMask)
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

ReductionAccumulators::ReductionAccumulators(std::int64_t inner, ReduceOp op)
    : value(at(inner), identityOf(op)), count(at(inner), 0)
{
}

void ReductionAccumulators::reset(ReduceOp op)
{
    std::fill(value.begin(), value.end(), identityOf(op));
    std::fill(count.begin(), count.end(), 0);
}

void ReductionAccumulators::fold(ReduceOp op, const ReductionAccumulators &next)
{
    for (std::size_t i = 0; i < value.size(); ++i) {
        count[i] += next.count[i];
        if (op == ReduceOp::Amax)
            value[i] = maximumOf(value[i], next.value[i]);
        else if (op == ReduceOp::Amin)
            value[i] = minimumOf(value[i], next.value[i]);
        else
            value[i] += next.value[i];
    }
}

std::string ReductionAccumulators::serialized() const
{
    std::string bytes(value.size() * (sizeof(double) + sizeof(std::int64_t)), '\0');
    std::memcpy(bytes.data(), value.data(), value.size() * sizeof(double));
    std::memcpy(bytes.data() + value.size() * sizeof(double), count.data(), count.size() * sizeof(std::int64_t));
    return bytes;
}

std::vector<ReductionAccumulators> ReductionAccumulators::deserialized(const std::string &bytes, std::int64_t inner, ReduceOp op)
{
    const std::size_t each = at(inner) * (sizeof(double) + sizeof(std::int64_t));
    std::vector<ReductionAccumulators> tiles;
    for (std::size_t offset = 0; each > 0 && offset + each <= bytes.size(); offset += each) {
        ReductionAccumulators tile(inner, op);
        std::memcpy(tile.value.data(), bytes.data() + offset, at(inner) * sizeof(double));
        std::memcpy(tile.count.data(), bytes.data() + offset + at(inner) * sizeof(double), at(inner) * sizeof(std::int64_t));
        tiles.push_back(std::move(tile));
    }
    return tiles;
}

std::int64_t reductionTileRows(const Shape &shape)
{
    return std::max<std::int64_t>(1, kReductionTile / std::max<std::int64_t>(1, rowLengthOf(shape)));
}

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
    requireIdentityOrElements(op, mask != nullptr, outer * inner > 0 && reduced == 0, shape);
    MaskedValue<T> out;
    out.shape = geometry.resultShape;
    out.values.resize(at(outer * inner));
    Mask outMask(mask ? at(outer * inner) : 0);
    const std::int64_t slab = reduced * inner;
    const TileGrid grid = tileGrid(shape, dim, inner);

    const bool parallel = numel(shape) >= kParallelThreshold;
    const int threads = parallel ? omp_get_max_threads() : 1;
    if (outer >= threads) {
        // Enough slabs to keep every thread busy: each task a run of whole slabs, its tiles in
        // order, of kReductionTile elements or more: one slab a task, a narrow table's rows
        // (`sum(x, 1)` of 10 million rows of 4) spent 1.7 s taking tasks, 0.1 s reducing.
        const auto slabsPerTask = std::max<std::int64_t>(1, kReductionTile / std::max<std::int64_t>(1, slab));
#pragma omp parallel if (parallel)
        {
            auto scratch = program.makeScratch();
            std::vector<T> selected(kBlock);
            Accumulators partial(inner, op), running(inner, op);
#pragma omp for schedule(dynamic, slabsPerTask)
            for (std::int64_t o = 0; o < outer; ++o) {
                running.reset(op);
                for (std::int64_t begin = 0; begin < slab;) {
                    const std::int64_t end = grid.tileEnd(begin, slab);
                    partial.reset(op);
                    accumulateRange(program, scratch, mask, op, o * slab, begin, end, inner, partial, selected.data());
                    running.fold(op, partial);
                    begin = end;
                }
                finishSlab(op, running, mask != nullptr, out.values.data() + o * inner,
                           mask ? outMask.data() + o * inner : nullptr);
            }
        }
    } else {
        // Few slabs (a full reduction, or dim 0): threads share each slab's tiles.
        for (std::int64_t o = 0; o < outer; ++o) {
            Accumulators running(inner, op);
            foldSlabTiles(program, mask, op, o * slab, slab, inner, grid, parallel,
                          [&](const Accumulators &partial) { running.fold(op, partial); });
            finishSlab(op, running, mask != nullptr, out.values.data() + o * inner, mask ? outMask.data() + o * inner : nullptr);
        }
    }
    if (mask) {
        out.kind = ValueKind::Masked;
        out.mask = std::make_shared<const Mask>(std::move(outMask));
    }
    return out;
}

template <class T>
RowReduction<T>::RowReduction(ReduceOp op, const Shape &shape, std::optional<int> dim, Mode mode)
    : m_op(op), m_shape(shape), m_dim(dim), m_mode(mode), m_inner(reductionGeometry(shape, dim).inner), m_running(m_inner, op)
{
}

template <class T>
void RowReduction<T>::add(const ElementwiseProgram<T> &program, std::int64_t rows, const Mask *mask)
{
    m_masked = m_masked || mask != nullptr;
    const std::int64_t elements = rows * (m_shape.empty() ? 1 : numel(m_shape, 1, m_shape.size()));
    const bool parallel = elements >= kParallelThreshold;
    foldSlabTiles(program, mask, m_op, 0, elements, m_inner, tileGrid(m_shape, m_dim, m_inner), parallel,
                  [&](const Accumulators &partial) {
                      if (m_mode == Mode::KeepTiles)
                          m_tiles.push_back(partial);
                      else
                          m_running.fold(m_op, partial);
                  });
}

template <class T>
std::string RowReduction<T>::keptTiles() const
{
    // First whether any element folded was masked: a rank folding others' tiles alone learns it here.
    std::string bytes(1, m_masked ? '\1' : '\0');
    for (const auto &tile : m_tiles)
        bytes += tile.serialized();
    return bytes;
}

template <class T>
void RowReduction<T>::foldTiles(const std::string &bytes)
{
    if (bytes.empty())
        return;
    m_masked = m_masked || bytes[0] != 0;
    for (const auto &tile : Accumulators::deserialized(bytes.substr(1), m_inner, m_op))
        m_running.fold(m_op, tile);
}

template <class T>
MaskedValue<T> RowReduction<T>::finish() const
{
    const auto geometry = reductionGeometry(m_shape, m_dim);
    requireIdentityOrElements(m_op, m_masked, geometry.inner > 0 && geometry.reduced == 0, m_shape);
    MaskedValue<T> out;
    out.shape = geometry.resultShape;
    out.values.resize(at(m_inner));
    Mask outMask(m_masked ? at(m_inner) : 0);
    finishSlab(m_op, m_running, m_masked, out.values.data(), m_masked ? outMask.data() : nullptr);
    if (m_masked) {
        out.kind = ValueKind::Masked;
        out.mask = std::make_shared<const Mask>(std::move(outMask));
    }
    return out;
}

template class RowReduction<float>;
template class RowReduction<double>;

template MaskedValue<float>
reduce<float>(const ElementwiseProgram<float> &, const Shape &, const Mask *, ReduceOp, std::optional<int>);
template MaskedValue<double>
reduce<double>(const ElementwiseProgram<double> &, const Shape &, const Mask *, ReduceOp, std::optional<int>);

} // namespace sparsity::core
