#include "core/tensor/conversions.h"

#include "core/tensor/sorting.h"
#include "core/util/errors.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Row-major strides of shape[first:last].
std::vector<std::int64_t> stridesOf(const Shape &shape, std::size_t first, std::size_t last)
{
    std::vector<std::int64_t> strides(last - first, 1);
    for (std::size_t d = last - first; d-- > 1;)
        strides[d - 1] = strides[d] * shape[first + d];
    return strides;
}

template <class T>
void fillZero(Buffer<T> &buffer)
{
    std::fill(buffer.begin(), buffer.end(), T{});
}

} // namespace

template <class T>
void cooToDenseInto(const CooTensor<T> &coo, T *out)
{
    std::fill_n(out, checkedNumel(coo.shape), T{});
    const auto slot = coo.denseSize();
    for (std::int64_t k = 0; k < coo.nnz; ++k) {
        const auto base = cooLinearIndex(coo, k) * slot;
        for (std::int64_t j = 0; j < slot; ++j)
            out[base + j] += coo.values[at(k * slot + j)];
    }
}

template <class T>
DenseTensor<T> cooToDense(const CooTensor<T> &coo)
{
    auto dense = makeDense<T>(coo.shape);
    cooToDenseInto(coo, dense.values.data());
    return dense;
}

template <class T>
void compressedToDenseInto(const CompressedTensor<T> &c, T *out)
{
    const auto cols = c.shape[1];
    const auto major = c.majorSize();
    if (c.axis == CompressedAxis::Row) {
#pragma omp parallel for schedule(static)
        for (std::int64_t i = 0; i < major; ++i) {
            T *row = out + i * cols;
            std::fill(row, row + cols, T{});
            for (auto k = c.indptr[at(i)]; k < c.indptr[at(i + 1)]; ++k)
                row[c.indices[at(k)]] += c.values[at(k)];
        }
    } else {
        std::fill_n(out, checkedNumel(c.shape), T{});
        for (std::int64_t j = 0; j < major; ++j)
            for (auto k = c.indptr[at(j)]; k < c.indptr[at(j + 1)]; ++k)
                out[c.indices[at(k)] * cols + j] += c.values[at(k)];
    }
}

template <class T>
DenseTensor<T> compressedToDense(const CompressedTensor<T> &c)
{
    auto dense = makeDense<T>(c.shape);
    compressedToDenseInto(c, dense.values.data());
    return dense;
}

template <class T>
DenseTensor<T> rowSparseToDense(const RowSparseTensor<T> &rsp)
{
    auto dense = makeDense<T>(rsp.shape);
    fillZero(dense.values);
    const auto width = rsp.rowSize();
    for (std::int64_t i = 0; i < rsp.storedRows(); ++i)
        std::copy_n(rsp.values.begin() + i * width, width, dense.values.begin() + rsp.rows[at(i)] * width);
    return dense;
}

template <class T>
CooTensor<T> denseToCoo(const DenseTensor<T> &dense, int sparseDims)
{
    const int rank = static_cast<int>(dense.shape.size());
    if (sparseDims < 0)
        sparseDims = rank;
    CooTensor<T> coo;
    coo.shape = dense.shape;
    coo.sparseDims = sparseDims;
    coo.coalesced = true;
    const auto slot = coo.denseSize();
    const auto points = slot == 0 ? 0 : dense.numel() / slot;
    std::vector<std::int64_t> kept;
    for (std::int64_t p = 0; p < points; ++p) {
        const T *v = dense.values.data() + p * slot;
        if (std::any_of(v, v + slot, [](T x) { return x != T{}; }))
            kept.push_back(p);
    }
    coo.nnz = static_cast<std::int64_t>(kept.size());
    coo.indices.resize(at(sparseDims * coo.nnz));
    coo.values.resize(at(coo.nnz * slot));
    const auto strides = stridesOf(dense.shape, 0, at(sparseDims));
    for (std::int64_t k = 0; k < coo.nnz; ++k) {
        auto rest = kept[at(k)];
        for (int d = 0; d < sparseDims; ++d) {
            coo.indices[at(d * coo.nnz + k)] = rest / strides[at(d)];
            rest %= strides[at(d)];
        }
        std::copy_n(dense.values.begin() + kept[at(k)] * slot, slot, coo.values.begin() + k * slot);
    }
    return coo;
}

namespace {

// Two passes over the rows, both parallel: count the kept elements per row (`keeps(i, j)`: row
// i's element j), then fill. No sorting is needed because each row is scanned in column order.
template <class T, class Keeps>
CompressedTensor<T> compressedRowsOf(const DenseTensor<T> &dense, const Keeps &keeps)
{
    const auto rows = dense.shape[0];
    const auto cols = dense.shape[1];
    CompressedTensor<T> csr;
    csr.shape = dense.shape;
    csr.axis = CompressedAxis::Row;
    csr.indptr.resize(at(rows + 1));
    csr.indptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) {
        std::int64_t count = 0;
        for (std::int64_t j = 0; j < cols; ++j)
            count += keeps(i, j);
        csr.indptr[at(i + 1)] = count;
    }
    std::partial_sum(csr.indptr.begin(), csr.indptr.end(), csr.indptr.begin());
    const auto nnz = csr.indptr[at(rows)];
    csr.indices.resize(at(nnz));
    csr.values.resize(at(nnz));
    // The fill writes every element and advances only past kept ones: branch-free, because
    // random sparsity patterns defeat the branch predictor. `out < end` bounds the writes.
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) {
        const T *row = dense.values.data() + i * cols;
        std::int64_t *indices = csr.indices.data() + csr.indptr[at(i)];
        T *values = csr.values.data() + csr.indptr[at(i)];
        const std::int64_t end = csr.indptr[at(i + 1)] - csr.indptr[at(i)];
        std::int64_t out = 0;
        for (std::int64_t j = 0; j < cols && out < end; ++j) {
            indices[out] = j;
            values[out] = row[j];
            out += keeps(i, j);
        }
    }
    return csr;
}

} // namespace

template <class T>
CompressedTensor<T> denseToCompressed(const DenseTensor<T> &dense, CompressedAxis axis, const std::uint8_t *kept)
{
    if (dense.shape.size() != 2)
        throw errors::layoutCannotHold(axis == CompressedAxis::Row ? "csr" : "csc", "needs a 2-d tensor",
                                       "shape " + shapeToString(dense.shape));
    const auto cols = dense.shape[1];
    const T *values = dense.values.data();
    auto csr =
        kept ? compressedRowsOf(dense, [&](std::int64_t i, std::int64_t j) -> std::int64_t { return kept[i * cols + j] != 0; })
             : compressedRowsOf(dense,
                                [&](std::int64_t i, std::int64_t j) -> std::int64_t { return values[i * cols + j] != T{}; });
    return axis == CompressedAxis::Row ? csr : compressedToAxis(csr, CompressedAxis::Column);
}

template <class T>
RowSparseTensor<T> denseToRowSparse(const DenseTensor<T> &dense)
{
    if (dense.shape.empty())
        throw errors::layoutCannotHold("row_sparse", "needs rank >= 1", "a 0-d tensor");
    RowSparseTensor<T> rsp;
    rsp.shape = dense.shape;
    const auto width = rsp.rowSize();
    for (std::int64_t r = 0; r < dense.shape[0]; ++r) {
        const T *row = dense.values.data() + r * width;
        if (std::any_of(row, row + width, [](T x) { return x != T{}; }))
            rsp.rows.push_back(r);
    }
    rsp.values.resize(at(rsp.storedRows() * width));
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rsp.storedRows(); ++i)
        std::copy_n(dense.values.begin() + rsp.rows[at(i)] * width, width, rsp.values.begin() + i * width);
    return rsp;
}

template <class T>
CooTensor<T> compressedToCoo(const CompressedTensor<T> &c)
{
    const auto &source = c.axis == CompressedAxis::Row ? c : compressedToAxis(c, CompressedAxis::Row);
    CooTensor<T> coo;
    coo.shape = c.shape;
    coo.sparseDims = 2;
    coo.nnz = source.nnz();
    coo.coalesced = compressedIsCanonical(source);
    coo.indices.resize(at(2 * coo.nnz));
    for (std::int64_t i = 0; i < source.shape[0]; ++i)
        for (auto k = source.indptr[at(i)]; k < source.indptr[at(i + 1)]; ++k) {
            coo.indices[at(k)] = i;
            coo.indices[at(coo.nnz + k)] = source.indices[at(k)];
        }
    coo.values = source.values;
    return coo;
}

template <class T>
CooTensor<T> rowSparseToCoo(const RowSparseTensor<T> &rsp)
{
    CooTensor<T> coo;
    coo.shape = rsp.shape;
    coo.sparseDims = 1;
    coo.nnz = rsp.storedRows();
    coo.indices.assign(rsp.rows.begin(), rsp.rows.end());
    coo.values = rsp.values;
    coo.coalesced = true;
    return coo;
}

template <class T>
CooTensor<T> cooExpandDenseDims(const CooTensor<T> &coo)
{
    const int rank = static_cast<int>(coo.rank());
    if (coo.sparseDims == rank)
        return coo;
    const auto slot = coo.denseSize();
    const auto denseStrides = stridesOf(coo.shape, at(coo.sparseDims), coo.shape.size());
    CooTensor<T> full;
    full.shape = coo.shape;
    full.sparseDims = rank;
    full.nnz = coo.nnz * slot;
    full.coalesced = coo.coalesced;
    full.indices.resize(at(rank * full.nnz));
    full.values = coo.values;
    for (std::int64_t k = 0; k < coo.nnz; ++k)
        for (std::int64_t j = 0; j < slot; ++j) {
            const auto e = k * slot + j;
            for (int d = 0; d < coo.sparseDims; ++d)
                full.indices[at(d * full.nnz + e)] = coo.index(d, k);
            auto rest = j;
            for (int d = coo.sparseDims; d < rank; ++d) {
                const auto stride = denseStrides[at(d - coo.sparseDims)];
                full.indices[at(d * full.nnz + e)] = rest / stride;
                rest %= stride;
            }
        }
    return full;
}

template <class T>
CompressedTensor<T> cooToCompressed(const CooTensor<T> &input, CompressedAxis axis)
{
    if (input.shape.size() != 2)
        throw errors::layoutCannotHold(axis == CompressedAxis::Row ? "csr" : "csc", "needs a 2-d tensor",
                                       "shape " + shapeToString(input.shape));
    const auto coo = coalesce(cooExpandDenseDims(input));
    const int majorDim = axis == CompressedAxis::Row ? 0 : 1;
    CompressedTensor<T> c;
    c.shape = coo.shape;
    c.axis = axis;
    const auto major = c.majorSize();
    c.indptr.assign(at(major + 1), 0);
    for (std::int64_t k = 0; k < coo.nnz; ++k)
        ++c.indptr[at(coo.index(majorDim, k) + 1)];
    std::partial_sum(c.indptr.begin(), c.indptr.end(), c.indptr.begin());
    c.indices.resize(at(coo.nnz));
    c.values.resize(at(coo.nnz));
    // A stable scatter of row-major sorted entries keeps minor indices sorted in both axes.
    std::vector<std::int64_t> next(c.indptr.begin(), c.indptr.end() - 1);
    for (std::int64_t k = 0; k < coo.nnz; ++k) {
        const auto slot = next[at(coo.index(majorDim, k))]++;
        c.indices[at(slot)] = coo.index(1 - majorDim, k);
        c.values[at(slot)] = coo.values[at(k)];
    }
    return c;
}

template <class T>
CompressedTensor<T> compressedToAxis(const CompressedTensor<T> &c, CompressedAxis axis)
{
    if (c.axis == axis)
        return c;
    CompressedTensor<T> out;
    out.shape = c.shape;
    out.axis = axis;
    const auto newMajor = out.majorSize();
    out.indptr.assign(at(newMajor + 1), 0);
    for (auto j : c.indices)
        ++out.indptr[at(j + 1)];
    std::partial_sum(out.indptr.begin(), out.indptr.end(), out.indptr.begin());
    out.indices.resize(c.indices.size());
    out.values.resize(c.values.size());
    std::vector<std::int64_t> next(out.indptr.begin(), out.indptr.end() - 1);
    for (std::int64_t i = 0; i < c.majorSize(); ++i)
        for (auto k = c.indptr[at(i)]; k < c.indptr[at(i + 1)]; ++k) {
            const auto slot = next[at(c.indices[at(k)])]++;
            out.indices[at(slot)] = i;
            out.values[at(slot)] = c.values[at(k)];
        }
    return out;
}

template <class T>
RowSparseTensor<T> cooToRowSparse(const CooTensor<T> &input)
{
    if (input.shape.empty())
        throw errors::layoutCannotHold("row_sparse", "needs rank >= 1", "a 0-d tensor");
    // A 0-d-sparse COO has no row index: expand it first (rare); otherwise use it in place.
    CooTensor<T> expanded;
    if (input.sparseDims == 0)
        expanded = cooExpandDenseDims(input);
    const auto &coo = input.sparseDims == 0 ? expanded : input;
    RowSparseTensor<T> rsp;
    rsp.shape = coo.shape;
    const auto width = rsp.rowSize();
    const auto perEntry = coo.denseSize();
    const auto tailStrides = stridesOf(coo.shape, 1, at(coo.sparseDims));
    std::vector<std::int64_t> rows(at(coo.nnz));
    for (std::int64_t k = 0; k < coo.nnz; ++k)
        rows[at(k)] = coo.index(0, k);
    std::vector<std::int64_t> unique = rows;
    std::sort(unique.begin(), unique.end());
    unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
    rsp.rows.assign(unique.begin(), unique.end());
    rsp.values.resize(at(rsp.storedRows() * width));
    fillZero(rsp.values);
    for (std::int64_t k = 0; k < coo.nnz; ++k) {
        const auto slotRow = std::lower_bound(unique.begin(), unique.end(), rows[at(k)]) - unique.begin();
        std::int64_t offset = 0; // offset inside the row of this entry's first value
        for (int d = 1; d < coo.sparseDims; ++d)
            offset += coo.index(d, k) * tailStrides[at(d - 1)] * perEntry;
        for (std::int64_t j = 0; j < perEntry; ++j)
            rsp.values[at(slotRow * width + offset + j)] += coo.values[at(k * perEntry + j)];
    }
    return rsp;
}

template <class T>
Buffer<std::int64_t> storedLinearIndices(const DenseTensor<T> &t)
{
    Buffer<std::int64_t> linear(t.values.size());
    std::iota(linear.begin(), linear.end(), std::int64_t{0});
    return linear;
}

template <class T>
Buffer<std::int64_t> storedLinearIndices(const CooTensor<T> &t)
{
    const auto slot = t.denseSize();
    Buffer<std::int64_t> linear(t.values.size());
    for (std::int64_t k = 0; k < t.nnz; ++k) {
        const auto base = cooLinearIndex(t, k) * slot;
        for (std::int64_t j = 0; j < slot; ++j)
            linear[at(k * slot + j)] = base + j;
    }
    return linear;
}

template <class T>
Buffer<std::int64_t> storedLinearIndices(const CompressedTensor<T> &t)
{
    Buffer<std::int64_t> linear(t.values.size());
    const auto cols = t.shape[1];
    for (std::int64_t i = 0; i < t.majorSize(); ++i)
        for (auto k = t.indptr[at(i)]; k < t.indptr[at(i + 1)]; ++k)
            linear[at(k)] = t.axis == CompressedAxis::Row ? i * cols + t.indices[at(k)] : t.indices[at(k)] * cols + i;
    return linear;
}

template <class T>
Buffer<std::int64_t> storedLinearIndices(const RowSparseTensor<T> &t)
{
    const auto width = t.rowSize();
    Buffer<std::int64_t> linear(t.values.size());
    for (std::int64_t i = 0; i < t.storedRows(); ++i)
        for (std::int64_t j = 0; j < width; ++j)
            linear[at(i * width + j)] = t.rows[at(i)] * width + j;
    return linear;
}

template <class T>
CooTensor<T> cooFromLinear(const Shape &shape, std::span<const std::int64_t> linear, std::span<const T> values)
{
    std::vector<std::int64_t> keys;
    Buffer<T> summed;
    // Ascending and unique already (what dense, canonical csr and row_sparse storage give): the
    // stable sort and the sums would leave them as they are, so neither runs (a masked
    // tensor's conversion sorted every element it specifies).
    if (std::adjacent_find(linear.begin(), linear.end(), [](auto a, auto b) { return a >= b; }) == linear.end()) {
        keys.assign(linear.begin(), linear.end());
        summed.assign(values.begin(), values.end());
    } else {
        for (const auto k : stableOrderByKey(linear)) {
            if (!keys.empty() && keys.back() == linear[at(k)]) {
                summed.back() += values[at(k)];
                continue;
            }
            keys.push_back(linear[at(k)]);
            summed.push_back(values[at(k)]);
        }
    }
    CooTensor<T> coo;
    coo.shape = shape;
    coo.sparseDims = static_cast<int>(shape.size());
    coo.nnz = static_cast<std::int64_t>(keys.size());
    coo.coalesced = true;
    coo.values = std::move(summed);
    coo.indices.resize(at(coo.sparseDims * coo.nnz));
    // The keys ascend, so the first coordinate changes only where a key passes the end of its
    // row: it is divided out there alone, and the last coordinate (stride 1) is what remains. A
    // division per element per dim was most of a masked tensor's conversion.
    const auto strides = stridesOf(shape, 0, shape.size());
    const auto last = coo.sparseDims - 1;
    if (last <= 0) { // 0-d: its one element has no coordinates; 1-d: the key is the coordinate
        std::copy(keys.begin(), keys.begin() + (last == 0 ? coo.nnz : 0), coo.indices.begin());
        return coo;
    }
    std::int64_t first = 0;
    std::int64_t firstStart = 0;
    for (std::int64_t k = 0; k < coo.nnz; ++k) {
        const auto key = keys[at(k)];
        if (key - firstStart >= strides[0]) {
            first = key / strides[0];
            firstStart = first * strides[0];
        }
        coo.indices[at(k)] = first;
        auto rest = key - firstStart;
        for (int d = 1; d < last; ++d) {
            coo.indices[at(d * coo.nnz + k)] = rest / strides[at(d)];
            rest %= strides[at(d)];
        }
        coo.indices[at(last * coo.nnz + k)] = rest;
    }
    return coo;
}

template <class T>
RowSparseTensor<T> retainRows(const RowSparseTensor<T> &rsp, std::span<const std::int64_t> keep)
{
    std::vector<std::int64_t> wanted(keep.begin(), keep.end());
    for (std::size_t i = 0; i < wanted.size(); ++i)
        if (wanted[i] < 0 || wanted[i] >= rsp.shape[0])
            throw errors::mustBe("retain row " + std::to_string(i), "be in [0, " + std::to_string(rsp.shape[0]) + ")",
                                 std::to_string(wanted[i]));
    std::sort(wanted.begin(), wanted.end());
    RowSparseTensor<T> out;
    out.shape = rsp.shape;
    const auto width = rsp.rowSize();
    for (std::int64_t i = 0; i < rsp.storedRows(); ++i) {
        if (!std::binary_search(wanted.begin(), wanted.end(), rsp.rows[at(i)]))
            continue;
        out.rows.push_back(rsp.rows[at(i)]);
        out.values.insert(out.values.end(), rsp.values.begin() + i * width, rsp.values.begin() + (i + 1) * width);
    }
    return out;
}

template <class T>
CooTensor<T> coalesce(const CooTensor<T> &tensor)
{
    if (tensor.coalesced)
        return tensor;
    const auto slot = tensor.denseSize();
    std::vector<std::int64_t> keys(at(tensor.nnz));
    for (std::int64_t k = 0; k < tensor.nnz; ++k)
        keys[at(k)] = cooLinearIndex(tensor, k);
    std::vector<std::int64_t> firstOf; // source entry that starts each output entry
    Buffer<T> values;
    for (const auto k : stableOrderByKey(keys)) {
        const bool duplicate = !firstOf.empty() && keys[at(firstOf.back())] == keys[at(k)];
        if (!duplicate) {
            firstOf.push_back(k);
            values.insert(values.end(), tensor.values.begin() + k * slot, tensor.values.begin() + (k + 1) * slot);
            continue;
        }
        T *dst = values.data() + values.size() - at(slot);
        for (std::int64_t j = 0; j < slot; ++j)
            dst[j] += tensor.values[at(k * slot + j)];
    }
    CooTensor<T> out;
    out.shape = tensor.shape;
    out.sparseDims = tensor.sparseDims;
    out.nnz = static_cast<std::int64_t>(firstOf.size());
    out.coalesced = true;
    out.values = std::move(values);
    out.indices.resize(at(out.sparseDims * out.nnz));
    for (int d = 0; d < out.sparseDims; ++d)
        for (std::int64_t k = 0; k < out.nnz; ++k)
            out.indices[at(d * out.nnz + k)] = tensor.index(d, firstOf[at(k)]);
    return out;
}

#define SPARSITY_INSTANTIATE(T)                                                                                                  \
    template DenseTensor<T> cooToDense<T>(const CooTensor<T> &);                                                                 \
    template void cooToDenseInto<T>(const CooTensor<T> &, T *);                                                                  \
    template void compressedToDenseInto<T>(const CompressedTensor<T> &, T *);                                                    \
    template DenseTensor<T> compressedToDense<T>(const CompressedTensor<T> &);                                                   \
    template DenseTensor<T> rowSparseToDense<T>(const RowSparseTensor<T> &);                                                     \
    template CooTensor<T> denseToCoo<T>(const DenseTensor<T> &, int);                                                            \
    template CompressedTensor<T> denseToCompressed<T>(const DenseTensor<T> &, CompressedAxis, const std::uint8_t *);             \
    template RowSparseTensor<T> denseToRowSparse<T>(const DenseTensor<T> &);                                                     \
    template CooTensor<T> compressedToCoo<T>(const CompressedTensor<T> &);                                                       \
    template CooTensor<T> rowSparseToCoo<T>(const RowSparseTensor<T> &);                                                         \
    template CooTensor<T> cooExpandDenseDims<T>(const CooTensor<T> &);                                                           \
    template CompressedTensor<T> cooToCompressed<T>(const CooTensor<T> &, CompressedAxis);                                       \
    template CompressedTensor<T> compressedToAxis<T>(const CompressedTensor<T> &, CompressedAxis);                               \
    template RowSparseTensor<T> cooToRowSparse<T>(const CooTensor<T> &);                                                         \
    template Buffer<std::int64_t> storedLinearIndices<T>(const DenseTensor<T> &);                                                \
    template Buffer<std::int64_t> storedLinearIndices<T>(const CooTensor<T> &);                                                  \
    template Buffer<std::int64_t> storedLinearIndices<T>(const CompressedTensor<T> &);                                           \
    template Buffer<std::int64_t> storedLinearIndices<T>(const RowSparseTensor<T> &);                                            \
    template CooTensor<T> cooFromLinear<T>(const Shape &, std::span<const std::int64_t>, std::span<const T>);                    \
    template RowSparseTensor<T> retainRows<T>(const RowSparseTensor<T> &, std::span<const std::int64_t>);                        \
    template CooTensor<T> coalesce<T>(const CooTensor<T> &);
SPARSITY_INSTANTIATE(float)
SPARSITY_INSTANTIATE(double)
SPARSITY_INSTANTIATE(std::uint8_t)
#undef SPARSITY_INSTANTIATE

} // namespace sparsity::core
