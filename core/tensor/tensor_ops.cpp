#include "core/tensor/tensor_ops.h"

#include "core/tensor/conversions.h"
#include "core/tensor/sorting.h"
#include "core/tensor/storage_rebind.h"
#include "core/util/errors.h"

#include <algorithm>
#include <type_traits>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

std::string rankRequirement(Layout layout)
{
    const auto &info = layoutInfo(layout);
    if (info.minRank == info.maxRank)
        return "needs a " + std::to_string(info.minRank) + "-d tensor";
    return "needs rank >= " + std::to_string(info.minRank);
}

template <class T>
CooTensor<T> toCoo(const DenseTensor<T> &t)
{
    return denseToCoo(t);
}
template <class T>
CooTensor<T> toCoo(const CooTensor<T> &t)
{
    return t;
}
template <class T>
CooTensor<T> toCoo(const CompressedTensor<T> &t)
{
    return compressedToCoo(t);
}
template <class T>
CooTensor<T> toCoo(const RowSparseTensor<T> &t)
{
    return rowSparseToCoo(t);
}

template <class T>
DenseTensor<T> toDense(const DenseTensor<T> &t)
{
    return t;
}
template <class T>
DenseTensor<T> toDense(const CooTensor<T> &t)
{
    return cooToDense(t);
}
template <class T>
DenseTensor<T> toDense(const CompressedTensor<T> &t)
{
    return compressedToDense(t);
}
template <class T>
DenseTensor<T> toDense(const RowSparseTensor<T> &t)
{
    return rowSparseToDense(t);
}

// Sparse source, sparse or dense target: pattern preserving, through COO.
template <class T>
auto fromCoo(const CooTensor<T> &coo, Layout target)
{
    using Result = std::variant<DenseTensor<T>, CooTensor<T>, CompressedTensor<T>, RowSparseTensor<T>>;
    switch (target) {
    case Layout::Dense:
        return Result{cooToDense(coo)};
    case Layout::Coo:
        return Result{coo};
    case Layout::Csr:
        return Result{cooToCompressed(coo, CompressedAxis::Row)};
    case Layout::Csc:
        return Result{cooToCompressed(coo, CompressedAxis::Column)};
    case Layout::RowSparse:
        return Result{cooToRowSparse(coo)};
    }
    throw InternalError("unknown layout");
}

template <class T>
Storage toStorage(std::variant<DenseTensor<T>, CooTensor<T>, CompressedTensor<T>, RowSparseTensor<T>> typed)
{
    return std::visit([](auto &&t) { return Storage{std::move(t)}; }, std::move(typed));
}

template <class T>
Storage convertUnmasked(const DenseTensor<T> &dense, Layout target)
{
    switch (target) {
    case Layout::Dense:
        return dense;
    case Layout::Coo:
        return denseToCoo(dense);
    case Layout::Csr:
        return denseToCompressed(dense, CompressedAxis::Row);
    case Layout::Csc:
        return denseToCompressed(dense, CompressedAxis::Column);
    case Layout::RowSparse:
        return denseToRowSparse(dense);
    }
    throw InternalError("unknown layout");
}

template <class T>
Storage convertUnmasked(const CompressedTensor<T> &c, Layout target)
{
    if (target == Layout::Csr || target == Layout::Csc)
        return compressedToAxis(c, target == Layout::Csr ? CompressedAxis::Row : CompressedAxis::Column);
    if (target == Layout::Dense)
        return compressedToDense(c);
    return toStorage<T>(fromCoo(compressedToCoo(c), target));
}

template <class S>
Storage convertUnmasked(const S &sparse, Layout target)
{
    return toStorage<ValueOf<S>>(fromCoo(toCoo(sparse), target));
}

template <class S>
Tensor convertMasked(const S &data, const Mask &mask, Layout target)
{
    using T = ValueOf<S>;
    // Dense data's specified elements are row-major and unique already: compressed straight,
    // each entry once, the mask all ones.
    if constexpr (std::is_same_v<S, DenseTensor<T>>)
        if ((target == Layout::Csr || target == Layout::Csc) && data.shape.size() == 2) {
            auto converted =
                denseToCompressed(data, target == Layout::Csr ? CompressedAxis::Row : CompressedAxis::Column, mask.data());
            Mask ones(converted.values.size(), std::uint8_t{1});
            return Tensor(Storage{std::move(converted)}, std::move(ones));
        }
    const auto linear = storedLinearIndices(data);
    Buffer<std::int64_t> kept;
    Buffer<T> values;
    const auto specifiedCount =
        static_cast<std::size_t>(std::count_if(mask.begin(), mask.end(), [](std::uint8_t m) { return m != 0; }));
    // Branch-free: every element is written at the next slot, which advances past the specified
    // ones alone (a slot to spare for the unspecified elements after the last specified one).
    kept.resize(specifiedCount + 1);
    values.resize(specifiedCount + 1);
    std::size_t next = 0;
    for (std::size_t k = 0; k < linear.size(); ++k) {
        kept[next] = linear[k];
        values[next] = data.values[k];
        next += mask[k] != 0;
    }
    kept.resize(specifiedCount);
    values.resize(specifiedCount);
    // The mask is the specified elements' pattern: the coalesced coo's, all ones (a stored
    // element given twice is specified once).
    const auto specified = cooFromLinear<T>(data.shape, kept, values);
    if (target == Layout::Coo || target == Layout::Csr || target == Layout::Csc) {
        // These keep every entry of a coalesced coo, each once: the mask is the values' pattern
        // with ones, not a second conversion (half a masked convert into csc's time).
        auto converted = toStorage<T>(fromCoo(specified, target));
        Mask ones(std::visit([](const auto &t) { return t.values.size(); }, converted), std::uint8_t{1});
        return Tensor(std::move(converted), std::move(ones));
    }
    CooTensor<std::uint8_t> specifiedOnes;
    specifiedOnes.shape = specified.shape;
    specifiedOnes.sparseDims = specified.sparseDims;
    specifiedOnes.nnz = specified.nnz;
    specifiedOnes.coalesced = true;
    specifiedOnes.indices = specified.indices;
    specifiedOnes.values.assign(specified.values.size(), std::uint8_t{1});
    Mask outMask = std::visit([](auto &&t) { return std::move(t.values); }, fromCoo(specifiedOnes, target));
    return Tensor(toStorage<T>(fromCoo(specified, target)), std::move(outMask));
}

} // namespace

void requireLayoutCanHold(Layout target, const Shape &shape)
{
    if (!layoutAcceptsRank(target, static_cast<int>(shape.size())))
        throw errors::layoutCannotHold(layoutName(target), rankRequirement(target), "shape " + shapeToString(shape));
}

Tensor toLayout(const Tensor &tensor, Layout target)
{
    requireLayoutCanHold(target, tensor.shape());
    if (tensor.isMasked())
        return tensor.visit([&](const auto &data) { return convertMasked(data, *tensor.mask(), target); });
    return Tensor(tensor.visit([&](const auto &t) { return convertUnmasked(t, target); }));
}

Tensor castStorage(const Tensor &tensor, Layout target)
{
    const auto source = tensor.layout();
    const bool allowed = source == target || (source == Layout::Dense && (target == Layout::Csr || target == Layout::RowSparse))
                         || (target == Layout::Dense && (source == Layout::Csr || source == Layout::RowSparse));
    if (!allowed)
        throw errors::mustBe("cast_storage", "convert between dense, csr and row_sparse with dense on one side",
                             std::string(layoutName(source)) + " -> " + std::string(layoutName(target)));
    return toLayout(tensor, target);
}

Tensor sparseMask(const Tensor &dense, const Tensor &pattern)
{
    if (dense.layout() != Layout::Dense)
        throw errors::mustBe("sparse_mask input", "be dense", std::string(layoutName(dense.layout())));
    if (dense.shape() != pattern.shape())
        throw errors::mustBe("sparse_mask pattern shape", "equal the input shape " + shapeToString(dense.shape()),
                             shapeToString(pattern.shape()));
    return dense.visit([&](const auto &d) -> Tensor {
        using T = ValueOf<decltype(d)>;
        if constexpr (std::is_same_v<std::decay_t<decltype(d)>, DenseTensor<T>>) {
            return pattern.visit([&](const auto &p) {
                const auto linear = storedLinearIndices(p);
                Buffer<T> values(linear.size());
                for (std::size_t k = 0; k < linear.size(); ++k)
                    values[k] = d.values[at(linear[k])];
                return Tensor(Storage{withValues<T>(p, std::move(values))});
            });
        } else {
            throw InternalError("sparse_mask: dense storage expected");
        }
    });
}

DenseTensor<double> toDenseDouble(const Tensor &tensor) { return toDenseAs<double>(tensor); }

namespace {

// What toLayout(Dense) gives a masked dense tensor's values (each specified value added to a
// zero, so -0 becomes +0; an unspecified one 0), in one pass into `out`: its detour through coo
// sorted every element (8.5 s for a sparsify of 192 MiB read by rows).
template <class T>
void maskedDenseInto(const Tensor &tensor, T *out)
{
    const Mask &mask = *tensor.mask();
    tensor.visit([&](const auto &data) {
        if constexpr (std::is_same_v<std::decay_t<decltype(data)>, DenseTensor<ValueOf<decltype(data)>>>) {
            using U = ValueOf<decltype(data)>;
            // On the calling thread (a streamed block's I/O thread, beside the compute team),
            // branch-free so that it vectorises: 0 + 0 is the +0 of an unspecified element.
            const U *values = data.values.data();
            const std::uint8_t *specified = mask.data();
            const auto n = static_cast<std::int64_t>(data.values.size());
            for (std::int64_t i = 0; i < n; ++i)
                out[i] = static_cast<T>(U(0) + (specified[i] ? values[i] : U(0)));
        } else {
            throw InternalError("a dense masked tensor's data is dense");
        }
    });
}

} // namespace

template <class T>
DenseTensor<T> toDenseAs(const Tensor &tensor)
{
    if (tensor.isMasked() && tensor.layout() == Layout::Dense) {
        DenseTensor<T> out{tensor.shape(), Buffer<T>(static_cast<std::size_t>(numel(tensor.shape())))};
        maskedDenseInto(tensor, out.values.data());
        return out;
    }
    const Tensor dense = tensor.layout() == Layout::Dense && !tensor.isMasked() ? tensor : toLayout(tensor, Layout::Dense);
    return dense.visit([](const auto &t) {
        const auto d = toDense(t);
        if constexpr (std::is_same_v<ValueOf<decltype(d)>, T>)
            return d;
        else
            return DenseTensor<T>{d.shape, Buffer<T>(d.values.begin(), d.values.end())};
    });
}

template DenseTensor<float> toDenseAs<float>(const Tensor &);
template DenseTensor<double> toDenseAs<double>(const Tensor &);

template <class T>
void toDenseInto(const Tensor &tensor, T *out)
{
    // The conversions toDenseAs takes (toLayout's, to dense), each into `out`: a csr or csc one
    // directly, a coo one as is, a row_sparse one through coo, which adds each value to a zero.
    if (tensor.isMasked() && tensor.layout() == Layout::Dense) {
        maskedDenseInto(tensor, out);
        return;
    }
    const bool written = !tensor.isMasked() && tensor.visit([&](const auto &t) {
        using S = std::decay_t<decltype(t)>;
        if constexpr (!std::is_same_v<ValueOf<S>, T>) {
            return false;
        } else {
            if constexpr (std::is_same_v<S, DenseTensor<T>>)
                std::copy(t.values.begin(), t.values.end(), out);
            else if constexpr (std::is_same_v<S, CompressedTensor<T>>)
                compressedToDenseInto(t, out);
            else if constexpr (std::is_same_v<S, CooTensor<T>>)
                cooToDenseInto(t, out);
            else
                cooToDenseInto(toCoo(t), out);
            return true;
        }
    });
    if (written)
        return;
    const auto dense = toDenseAs<T>(tensor);
    std::copy(dense.values.begin(), dense.values.end(), out);
}

template void toDenseInto<float>(const Tensor &, float *);
template void toDenseInto<double>(const Tensor &, double *);

std::int64_t storedValueCount(const Tensor &tensor)
{
    return tensor.visit([](const auto &t) { return static_cast<std::int64_t>(t.values.size()); });
}

std::int64_t heldBytes(const Tensor &tensor)
{
    const auto indexBytes = tensor.visit([](const auto &t) {
        std::size_t indices = 0;
        if constexpr (requires { t.indices; })
            indices += t.indices.size();
        if constexpr (requires { t.indptr; })
            indices += t.indptr.size();
        if constexpr (requires { t.rows; })
            indices += t.rows.size();
        return static_cast<std::int64_t>(indices * sizeof(std::int64_t) + t.values.size() * sizeof(t.values[0]));
    });
    return indexBytes + (tensor.mask() ? static_cast<std::int64_t>(tensor.mask()->size()) : 0);
}

Mask specifiedMaskDense(const Tensor &tensor)
{
    Mask out(static_cast<std::size_t>(numel(tensor.shape())));
    specifiedMaskInto(tensor, out.data());
    return out;
}

void specifiedMaskInto(const Tensor &tensor, std::uint8_t *out)
{
    const auto n = numel(tensor.shape());
    if (!tensor.isMasked()) {
        std::fill_n(out, n, std::uint8_t{1});
    } else if (tensor.layout() == Layout::Dense) { // its own mask, as 0 and 1 (what toLayout gives)
        const Mask &mask = *tensor.mask();
        std::transform(mask.begin(), mask.end(), out, [](std::uint8_t m) { return std::uint8_t{m != 0}; });
    } else {
        const auto dense = toLayout(tensor, Layout::Dense);
        std::copy_n(dense.mask()->begin(), n, out);
    }
}

template <class T>
void toDenseWithSpecifiedInto(const Tensor &tensor, T *values, std::uint8_t *specified)
{
    const auto n = numel(tensor.shape());
    const bool scattered = tensor.isMasked() && tensor.visit([&](const auto &t) {
        if constexpr (std::is_same_v<std::decay_t<decltype(t)>, CooTensor<T>>) {
            // (0 + a) + b has the bits of 0 + (a + b) for every a and b, NaNs and zeros' signs
            // included: the order of the additions is what matters, and it is the stored one.
            const Mask &mask = *tensor.mask();
            std::fill_n(values, n, T{});
            std::fill_n(specified, n, std::uint8_t{0});
            const auto slot = t.denseSize();
            for (std::int64_t k = 0; k < t.nnz; ++k) {
                const auto base = cooLinearIndex(t, k) * slot;
                for (std::int64_t j = 0; j < slot; ++j)
                    if (mask[at(k * slot + j)] != 0) {
                        values[base + j] += t.values[at(k * slot + j)];
                        specified[base + j] = 1;
                    }
            }
            return true;
        }
        return false;
    });
    if (scattered)
        return;
    const Tensor dense = tensor.isMasked() && tensor.layout() != Layout::Dense ? toLayout(tensor, Layout::Dense) : tensor;
    toDenseInto(dense, values);
    specifiedMaskInto(dense, specified);
}

template void toDenseWithSpecifiedInto<float>(const Tensor &, float *, std::uint8_t *);
template void toDenseWithSpecifiedInto<double>(const Tensor &, double *, std::uint8_t *);

} // namespace sparsity::core
