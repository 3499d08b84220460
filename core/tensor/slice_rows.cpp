#include "core/tensor/slice_rows.h"

#include "core/util/errors.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// The stored values a slice keeps, as runs [first, last) in stored order: a masked tensor's
// mask has one byte per stored value, so the slice's mask is the same runs of it.
class KeptValues {
public:
    void add(std::int64_t first, std::int64_t last)
    {
        if (first == last)
            return;
        if (!m_runs.empty() && m_runs.back().second == first)
            m_runs.back().second = last;
        else
            m_runs.emplace_back(first, last);
    }
    template <class V>
    Buffer<V> of(const Buffer<V> &values) const
    {
        Buffer<V> kept;
        for (const auto &[first, last] : m_runs)
            kept.insert(kept.end(), values.begin() + first, values.begin() + last);
        return kept;
    }

private:
    std::vector<std::pair<std::int64_t, std::int64_t>> m_runs;
};

template <class T>
DenseTensor<T> denseRows(const DenseTensor<T> &t, RowRange rows, KeptValues &kept)
{
    const auto width = numel(t.shape, 1, t.shape.size());
    kept.add(rows.begin * width, rows.end * width);
    DenseTensor<T> out{t.shape, kept.of(t.values)};
    out.shape[0] = rows.count();
    return out;
}

template <class T>
CooTensor<T> cooRows(const CooTensor<T> &t, RowRange rows, KeptValues &kept)
{
    if (t.sparseDims == 0) { // every entry a dense block of the whole shape: its rows of each
        CooTensor<T> out = t;
        out.shape[0] = rows.count();
        const auto rowWidth = numel(t.shape, 1, t.shape.size()), block = t.denseSize();
        for (std::int64_t e = 0; e < t.nnz; ++e)
            kept.add(e * block + rows.begin * rowWidth, e * block + rows.end * rowWidth);
        out.values = kept.of(t.values);
        return out;
    }
    std::vector<std::int64_t> entries;
    for (std::int64_t e = 0; e < t.nnz; ++e)
        if (const auto row = t.index(0, e); row >= rows.begin && row < rows.end)
            entries.push_back(e);
    CooTensor<T> out;
    out.shape = t.shape;
    out.shape[0] = rows.count();
    out.sparseDims = t.sparseDims;
    out.nnz = static_cast<std::int64_t>(entries.size());
    out.coalesced = t.coalesced; // a subset of sorted, unique entries is sorted and unique
    out.indices.reserve(at(t.sparseDims * out.nnz));
    for (int dim = 0; dim < t.sparseDims; ++dim)
        for (const auto e : entries)
            out.indices.push_back(t.index(dim, e) - (dim == 0 ? rows.begin : 0));
    const auto width = t.denseSize();
    for (const auto e : entries)
        kept.add(e * width, (e + 1) * width);
    out.values = kept.of(t.values);
    return out;
}

template <class T>
CompressedTensor<T> compressedRows(const CompressedTensor<T> &t, RowRange rows, KeptValues &kept)
{
    CompressedTensor<T> out;
    out.shape = {rows.count(), t.shape[1]};
    out.axis = t.axis;
    if (t.axis == CompressedAxis::Row) {
        const auto first = t.indptr[at(rows.begin)];
        for (auto r = rows.begin; r <= rows.end; ++r)
            out.indptr.push_back(t.indptr[at(r)] - first);
        kept.add(first, t.indptr[at(rows.end)]);
        out.indices.assign(t.indices.begin() + first, t.indices.begin() + t.indptr[at(rows.end)]);
    } else {
        // Each column's entries in the rows, in their stored order.
        out.indptr.push_back(0);
        for (std::int64_t column = 0; column < t.shape[1]; ++column) {
            for (auto e = t.indptr[at(column)]; e < t.indptr[at(column + 1)]; ++e)
                if (const auto row = t.indices[at(e)]; row >= rows.begin && row < rows.end) {
                    out.indices.push_back(row - rows.begin);
                    kept.add(e, e + 1);
                }
            out.indptr.push_back(static_cast<std::int64_t>(out.indices.size()));
        }
    }
    out.values = kept.of(t.values);
    return out;
}

template <class T>
RowSparseTensor<T> rowSparseRows(const RowSparseTensor<T> &t, RowRange rows, KeptValues &kept)
{
    // Stored rows are sorted: those in `rows` are one run of them.
    const auto first = std::lower_bound(t.rows.begin(), t.rows.end(), rows.begin);
    const auto last = std::lower_bound(first, t.rows.end(), rows.end);
    RowSparseTensor<T> out;
    out.shape = t.shape;
    out.shape[0] = rows.count();
    for (auto k = first; k != last; ++k)
        out.rows.push_back(*k - rows.begin);
    const auto width = t.rowSize();
    kept.add((first - t.rows.begin()) * width, (last - t.rows.begin()) * width);
    out.values = kept.of(t.values);
    return out;
}

} // namespace

Tensor sliceRows(const Tensor &tensor, RowRange rows)
{
    if (tensor.rank() < 1)
        throw errors::mustBe("a slice of rows", "take a tensor of rank >= 1", "a 0-d tensor");
    const auto total = tensor.shape()[0];
    if (!rows.within(total))
        throw errors::mustBe("row range", "lie within [0, " + std::to_string(total) + "]", rows.text());
    KeptValues kept;
    Storage storage = tensor.visit([&](const auto &t) -> Storage {
        using S = std::decay_t<decltype(t)>;
        using T = ValueOf<S>;
        if constexpr (std::is_same_v<S, DenseTensor<T>>)
            return denseRows(t, rows, kept);
        else if constexpr (std::is_same_v<S, CooTensor<T>>)
            return cooRows(t, rows, kept);
        else if constexpr (std::is_same_v<S, CompressedTensor<T>>)
            return compressedRows(t, rows, kept);
        else
            return rowSparseRows(t, rows, kept);
    });
    if (!tensor.isMasked())
        return Tensor(std::move(storage));
    return Tensor(std::move(storage), kept.of(*tensor.mask()));
}

} // namespace sparsity::core
