#include "core/optim/update_pattern.h"

#include "core/tensor/conversions.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

#include <algorithm>
#include <numeric>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// The masked semantics' pattern: every element `maskValues` holds (nonzero; NaN counts), with
// `source`'s value there, or 0 where it stores none. In chunks on every thread: each counts its
// chunk's elements, then fills its own place, so the pattern is the same on any number of
// threads.
template <class T, class M>
void fillMaskedElements(std::span<const M> maskValues, const UpdatePattern<T> &source, UpdatePattern<T> &pattern)
{
    const auto count = static_cast<std::int64_t>(maskValues.size());
    const std::int64_t chunks = std::clamp<std::int64_t>(count / 65536, 1, 256);
    const auto chunkBegin = [&](std::int64_t c) { return count / chunks * c + std::min(c, count % chunks); };
    std::vector<std::int64_t> offsets(at(chunks) + 1, 0);
#pragma omp parallel for schedule(static)
    for (std::int64_t c = 0; c < chunks; ++c) {
        std::int64_t held = 0;
        for (auto i = chunkBegin(c); i < chunkBegin(c + 1); ++i)
            held += maskValues[at(i)] != M(0);
        offsets[at(c + 1)] = held;
    }
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    // Sized from empty: a buffer that grows copies nothing, one that fits keeps its pages.
    pattern.elements.clear();
    pattern.elements.resize(at(offsets.back()));
    Buffer<T> values = std::move(pattern.owned);
    values.clear();
    values.resize(at(offsets.back()));
    const auto &elements = source.elements;
#pragma omp parallel for schedule(static)
    for (std::int64_t c = 0; c < chunks; ++c) {
        auto out = offsets[at(c)];
        const auto end = offsets[at(c + 1)];
        auto stored = std::lower_bound(elements.begin(), elements.end(), chunkBegin(c));
        // Both ascend: a merge. Every element is written at `out`, which moves on only past a
        // held one (no branch on a random mask); the chunk's last place is not written past.
        for (auto i = chunkBegin(c); i < chunkBegin(c + 1) && out < end; ++i) {
            while (stored != elements.end() && *stored < i)
                ++stored;
            pattern.elements[at(out)] = i;
            values[at(out)] = stored != elements.end() && *stored == i ? source.values[at(stored - elements.begin())] : T(0);
            out += maskValues[at(i)] != M(0) ? 1 : 0;
        }
    }
    pattern.own(std::move(values));
}

template <class T, class U>
Buffer<T> cast(Buffer<U> &&values)
{
    if constexpr (std::is_same_v<T, U>)
        return std::move(values);
    else
        return Buffer<T>(values.begin(), values.end());
}

// (linear index, value) pairs of the specified stored values, sorted, duplicates summed in
// stored order. Stored sorted (a coalesced file), they are compacted where they stand: beside
// the tensor this holds 12 bytes a value, and 8 more only to sort unsorted ones.
template <class T>
void specifiedElements(const Tensor &grad, Buffer<std::int64_t> &elements, Buffer<T> &values)
{
    grad.visit([&](const auto &g) {
        elements = storedLinearIndices(g);
        values.resize(elements.size());
        std::transform(g.values.begin(), g.values.begin() + static_cast<std::ptrdiff_t>(elements.size()), values.begin(),
                       [](auto v) { return static_cast<T>(v); });
        if (const auto *mask = grad.mask() ? &*grad.mask() : nullptr) {
            std::size_t kept = 0;
            for (std::size_t k = 0; k < elements.size(); ++k)
                if ((*mask)[k]) {
                    elements[kept] = elements[k];
                    values[kept++] = values[k];
                }
            elements.resize(kept);
            values.resize(kept);
        }
        if (!std::is_sorted(elements.begin(), elements.end())) {
            std::vector<std::size_t> order(elements.size());
            std::iota(order.begin(), order.end(), std::size_t{0});
            std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return elements[a] < elements[b]; });
            Buffer<std::int64_t> sortedElements(elements.size());
            Buffer<T> sortedValues(values.size());
            for (std::size_t k = 0; k < order.size(); ++k) {
                sortedElements[k] = elements[order[k]];
                sortedValues[k] = values[order[k]];
            }
            elements = std::move(sortedElements);
            values = std::move(sortedValues);
        }
        std::size_t written = 0;
        for (std::size_t k = 0; k < elements.size(); ++k) {
            if (written > 0 && elements[written - 1] == elements[k]) {
                values[written - 1] += values[k]; // duplicates add up, as coalesce() does
                continue;
            }
            elements[written] = elements[k];
            values[written++] = values[k];
        }
        const bool manyDuplicates = written < elements.size() / 4 * 3;
        elements.resize(written);
        values.resize(written);
        if (manyDuplicates) { // give back what they took
            elements.shrink_to_fit();
            values.shrink_to_fit();
        }
    });
}

int cooSparseDims(const Tensor &coo)
{
    return coo.visit([](const auto &t) {
        if constexpr (requires { t.sparseDims; })
            return t.sparseDims;
        else
            return -1;
    });
}

std::int64_t rowWidthOf(const Shape &shape) { return shape.empty() ? 1 : numel(shape, 1, shape.size()); }

// Whether a gradient's stored values are whole rows: dense, row_sparse, and hybrid COO with one
// sparse dim (never masked, never 0-d).
bool rowGranular(const Tensor &grad)
{
    const auto layout = grad.layout();
    return !grad.isMasked() && !grad.shape().empty()
           && (layout == Layout::Dense || layout == Layout::RowSparse || (layout == Layout::Coo && cooSparseDims(grad) == 1));
}

// The stored rows, duplicates summed from 0 in stored order (cooToRowSparse); a dense
// gradient's all-zero rows are not stored.
template <class T>
UpdatePattern<T> rowsFrom(const Tensor &grad)
{
    UpdatePattern<T> pattern;
    pattern.kind = UpdatePattern<T>::Kind::Rows;
    pattern.rowWidth = rowWidthOf(grad.shape());
    grad.visit([&](const auto &g) {
        using S = std::decay_t<decltype(g)>;
        using U = ValueOf<S>;
        RowSparseTensor<U> rsp;
        if constexpr (std::is_same_v<S, RowSparseTensor<U>>)
            rsp = g; // the gradient stays intact: it may be reused by --compare runs
        else if constexpr (std::is_same_v<S, DenseTensor<U>>)
            rsp = denseToRowSparse(g);
        else if constexpr (std::is_same_v<S, CooTensor<U>>)
            rsp = cooToRowSparse(g);
        else
            throw InternalError("rowsFrom: unexpected layout");
        pattern.rows = std::move(rsp.rows);
        pattern.own(cast<T>(std::move(rsp.values)));
    });
    return pattern;
}

// The specified values as Elements: the stored ones (a masked gradient's inside its mask),
// sorted by element, duplicates summed in stored order as coalesce() sums them.
template <class T>
UpdatePattern<T> specifiedPattern(const Tensor &grad)
{
    UpdatePattern<T> pattern;
    pattern.kind = UpdatePattern<T>::Kind::Elements;
    pattern.rowWidth = rowWidthOf(grad.shape());
    Buffer<T> values;
    specifiedElements(grad, pattern.elements, values);
    pattern.own(std::move(values));
    return pattern;
}

} // namespace

template <class T>
UpdatePattern<T> buildUpdatePattern(const Tensor &grad, Semantics semantics, const Tensor *mask)
{
    const auto &shape = grad.shape();
    const auto layout = grad.layout();
    if (semantics == Semantics::Dense) {
        if (grad.isMasked() || layout != Layout::Dense)
            return filledPattern(fillSource<T>(grad, semantics), semantics, nullptr, numel(shape));
        UpdatePattern<T> pattern;
        pattern.kind = UpdatePattern<T>::Kind::All;
        pattern.rowWidth = rowWidthOf(shape);
        if (const auto *dense = std::get_if<DenseTensor<T>>(&grad.storage()))
            pattern.values = dense->values;
        else
            grad.visit([&](const auto &g) { pattern.own(Buffer<T>(g.values.begin(), g.values.end())); });
        return pattern;
    }

    if (semantics == Semantics::Lazy) {
        if (shape.empty())
            throw errors::mustBe("a lazy step's parameter", "have rank >= 1 (rows to touch)", "a 0-d parameter");
        return rowGranular(grad) ? rowsFrom<T>(grad) : specifiedPattern<T>(grad);
    }

    // Masked.
    if (!mask) {
        if (!grad.isMasked() && layout == Layout::Dense)
            throw InputError("masked semantics needs a mask: give a mask, a masked_tensor gradient or a sparse gradient "
                             "(a dense gradient without a mask has no pattern)");
        return specifiedPattern<T>(grad);
    }
    if (mask->shape() != shape)
        throw errors::mustBe("the mask", "have the gradient's shape " + shapeToString(shape), shapeToString(mask->shape()));
    return filledPattern(fillSource<T>(grad, semantics), semantics, mask, numel(shape));
}

std::int64_t coalescedBytes(const Tensor &grad, Semantics semantics, std::size_t valueSize)
{
    const auto values = storedValueCount(grad);
    if (semantics != Semantics::Masked && rowGranular(grad)) {
        const auto rows = grad.visit([](const auto &t) {
            if constexpr (requires { t.nnz; })
                return t.nnz;
            else if constexpr (requires { t.rows; })
                return static_cast<std::int64_t>(t.rows.size());
            else
                return t.shape.empty() ? std::int64_t{1} : t.shape[0];
        });
        return rows * static_cast<std::int64_t>(sizeof(std::int64_t)) + values * static_cast<std::int64_t>(valueSize);
    }
    return values * static_cast<std::int64_t>(sizeof(std::int64_t) + valueSize);
}

template <class T>
UpdatePattern<T> fillSource(const Tensor &grad, Semantics semantics)
{
    if (semantics == Semantics::Dense && rowGranular(grad))
        return rowsFrom<T>(grad);
    if (semantics == Semantics::Dense || semantics == Semantics::Masked)
        return specifiedPattern<T>(grad);
    throw InternalError("fillSource: the dense semantics, or the masked one with a mask");
}

template <class T>
UpdatePattern<T> filledPattern(
    const UpdatePattern<T> &source, Semantics semantics, const Tensor *mask, std::int64_t count, UpdatePattern<T> recycled)
{
    using Kind = typename UpdatePattern<T>::Kind;
    const auto width = source.rowWidth;
    UpdatePattern<T> pattern;
    pattern.elements = std::move(recycled.elements);
    pattern.owned = std::move(recycled.owned);
    pattern.rowWidth = width;
    pattern.firstRow = source.firstRow;
    if (semantics == Semantics::Dense) {
        // 0 + the coalesced value: the bits densifying gives, which adds each stored value to 0
        // in turn (a sum of -0 becomes +0 either way).
        pattern.kind = Kind::All;
        pattern.elements.clear();
        Buffer<T> values = std::move(pattern.owned);
        values.assign(at(count), T(0));
        if (source.kind == Kind::Rows) {
            for (std::size_t k = 0; k < source.rows.size(); ++k)
                for (std::int64_t j = 0; j < width; ++j)
                    values[at(source.rows[k] * width + j)] = T(0) + source.values[k * at(width) + at(j)];
        } else {
            for (std::size_t k = 0; k < source.elements.size(); ++k)
                values[at(source.elements[k])] = T(0) + source.values[k];
        }
        pattern.own(std::move(values));
        return pattern;
    }
    if (semantics != Semantics::Masked || !mask || source.kind != Kind::Elements)
        throw InternalError("filledPattern: the dense semantics, or the masked one with a mask and specified elements");
    // The mask decides: every specified element gets the gradient's value there (0 if the
    // gradient does not store it); stored values outside the mask are ignored. A dense mask is
    // read as it is held (a block's, once per step and gradient: no copy of it in doubles).
    pattern.kind = Kind::Elements;
    mask->visit([&](const auto &m) {
        if constexpr (std::is_same_v<std::decay_t<decltype(m)>, DenseTensor<ValueOf<decltype(m)>>>)
            fillMaskedElements<T>(std::span(m.values.data(), m.values.size()), source, pattern);
        else {
            const auto dense = toDenseDouble(*mask);
            fillMaskedElements<T>(std::span(dense.values.data(), dense.values.size()), source, pattern);
        }
    });
    return pattern;
}

template <class T>
UpdatePattern<T> patternInRows(const UpdatePattern<T> &whole, RowRange rows)
{
    using Kind = typename UpdatePattern<T>::Kind;
    const auto width = whole.rowWidth;
    UpdatePattern<T> part;
    part.kind = whole.kind;
    part.rowWidth = width;
    part.firstRow = whole.firstRow + rows.begin;
    // Indices are sorted: the rows' entries are one contiguous run of them.
    const auto run = [&](const Buffer<std::int64_t> &indices, std::int64_t perRow, Buffer<std::int64_t> &into) {
        const auto first = std::lower_bound(indices.begin(), indices.end(), rows.begin * perRow);
        const auto last = std::lower_bound(first, indices.end(), rows.end * perRow);
        into.reserve(static_cast<std::size_t>(last - first));
        for (auto k = first; k != last; ++k)
            into.push_back(*k - rows.begin * perRow);
        return std::pair{static_cast<std::size_t>(first - indices.begin()), static_cast<std::size_t>(last - first)};
    };
    switch (whole.kind) {
    case Kind::All:
        part.values =
            whole.values.subspan(static_cast<std::size_t>(rows.begin * width), static_cast<std::size_t>(rows.count() * width));
        break;
    case Kind::Rows: {
        const auto [offset, count] = run(whole.rows, 1, part.rows);
        part.values = whole.values.subspan(offset * static_cast<std::size_t>(width), count * static_cast<std::size_t>(width));
        break;
    }
    case Kind::Elements: {
        const auto [offset, count] = run(whole.elements, width, part.elements);
        part.values = whole.values.subspan(offset, count);
        break;
    }
    }
    return part;
}

bool widensToTorchSparseSgd(const OptimizerOptions &options)
{
    return options.rule == Rule::Torch && options.kind == OptimizerKind::Sgd && options.semantics == Semantics::Lazy
           && options.hp.momentum != 0;
}

std::vector<char> rowsHeldByBuffer(std::span<const std::int64_t> lastUpdate)
{
    std::vector<char> rows(lastUpdate.size());
    std::transform(lastUpdate.begin(), lastUpdate.end(), rows.begin(), [](std::int64_t step) { return step > 0; });
    return rows;
}

template <class T>
UpdatePattern<T> torchSparseSgdPattern(UpdatePattern<T> step, std::vector<char> &bufferRows)
{
    using Kind = typename UpdatePattern<T>::Kind;
    const auto width = step.rowWidth;
    const auto rowCount = static_cast<std::int64_t>(bufferRows.size());
    // The step's gradient by row: Rows values are already row-major; Elements scatter.
    const auto rowOf = [&](std::size_t k) {
        return step.kind == Kind::Rows ? step.rows[k / static_cast<std::size_t>(width)] : step.elements[k] / width;
    };
    for (std::size_t k = 0; k < step.values.size(); ++k)
        bufferRows[static_cast<std::size_t>(rowOf(k))] = 1;

    UpdatePattern<T> widened;
    widened.kind = Kind::Rows;
    widened.rowWidth = width;
    widened.firstRow = step.firstRow;
    // Where each parameter row's values start in the widened pattern (-1: not in it).
    std::vector<std::int64_t> slot(bufferRows.size(), -1);
    for (std::int64_t r = 0; r < rowCount; ++r) {
        if (!bufferRows[static_cast<std::size_t>(r)])
            continue;
        slot[static_cast<std::size_t>(r)] = static_cast<std::int64_t>(widened.rows.size());
        widened.rows.push_back(r);
    }
    const auto slots = static_cast<std::int64_t>(widened.rows.size());
    Buffer<T> values(static_cast<std::size_t>(slots * width), T(0));
    for (std::size_t k = 0; k < step.values.size(); ++k) {
        const auto column = step.kind == Kind::Rows ? static_cast<std::int64_t>(k) % width : step.elements[k] % width;
        values[static_cast<std::size_t>(slot[static_cast<std::size_t>(rowOf(k))] * width + column)] = step.values[k];
    }
    widened.own(std::move(values));
    return widened;
}

template UpdatePattern<float> buildUpdatePattern<float>(const Tensor &, Semantics, const Tensor *);
template UpdatePattern<double> buildUpdatePattern<double>(const Tensor &, Semantics, const Tensor *);
template UpdatePattern<float> fillSource<float>(const Tensor &, Semantics);
template UpdatePattern<double> fillSource<double>(const Tensor &, Semantics);
template UpdatePattern<float>
filledPattern<float>(const UpdatePattern<float> &, Semantics, const Tensor *, std::int64_t, UpdatePattern<float>);
template UpdatePattern<double>
filledPattern<double>(const UpdatePattern<double> &, Semantics, const Tensor *, std::int64_t, UpdatePattern<double>);
template UpdatePattern<float> patternInRows<float>(const UpdatePattern<float> &, RowRange);
template UpdatePattern<double> patternInRows<double>(const UpdatePattern<double> &, RowRange);
template UpdatePattern<float> torchSparseSgdPattern<float>(UpdatePattern<float>, std::vector<char> &);
template UpdatePattern<double> torchSparseSgdPattern<double>(UpdatePattern<double>, std::vector<char> &);

} // namespace sparsity::core
