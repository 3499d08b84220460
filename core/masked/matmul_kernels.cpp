#include "core/masked/matmul_kernels.h"

#include "core/util/errors.h"

#include <Eigen/Core>
#include <algorithm>

namespace sparsity::core {
namespace {

template <class T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The operand with unspecified (or unstored) elements set to 0.
template <class T>
RowMajor<T> zeroFilled(const MaskedValue<T> &v)
{
    RowMajor<T> m = Eigen::Map<const RowMajor<T>>(v.values.data(), v.shape[0], v.shape[1]);
    if (v.mask)
        for (Eigen::Index i = 0; i < m.size(); ++i)
            if (!(*v.mask)[static_cast<std::size_t>(i)])
                m.data()[i] = T(0);
    return m;
}

// out = a * b in the fixed chunks of matmul_kernels.h, divided among the threads when the
// product is large enough to gain from it. Each chunk is Eigen's single-threaded gemm, whose
// inner blocking depends on the inner dimension alone; Eigen's own parallel gemm blocked by the
// thread count (OMP_NUM_THREADS 1 and 2 gave 179,082 of 192,000 elements of a 3000 x 2000 by
// 2000 x 64 product different last bits).
template <class T, class A, class B>
void multiplyRows(const A &a, const B &b, Eigen::Map<RowMajor<T>> &out)
{
    constexpr double kParallelWork = 1 << 21; // multiply-adds below which one thread is as fast
    const Eigen::Index rows = a.rows();
    const Eigen::Index chunks = (rows + kProductChunkRows - 1) / kProductChunkRows;
    const auto work = static_cast<double>(rows) * static_cast<double>(a.cols()) * static_cast<double>(b.cols());
    const auto multiplyChunk = [&](Eigen::Index c) {
        const Eigen::Index first = c * kProductChunkRows, count = std::min<Eigen::Index>(kProductChunkRows, rows - first);
        out.middleRows(first, count).noalias() = a.middleRows(first, count) * b;
    };
    if (chunks < 2 || work < kParallelWork) {
        for (Eigen::Index c = 0; c < chunks; ++c)
            multiplyChunk(c);
        return;
    }
#pragma omp parallel for schedule(dynamic)
    for (Eigen::Index c = 0; c < chunks; ++c)
        multiplyChunk(c);
}

// 1 where specified (or stored), else 0; all ones for Plain values. Counts are exact in double.
template <class T>
RowMajor<double> patternMatrix(const MaskedValue<T> &v)
{
    RowMajor<double> m(v.shape[0], v.shape[1]);
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = v.mask ? static_cast<double>((*v.mask)[static_cast<std::size_t>(i)] != 0) : 1.0;
    return m;
}

} // namespace

template <class T>
MaskedValue<T> matmul(const MaskedValue<T> &a, const MaskedValue<T> &b, bool sparseProduct)
{
    if (a.shape.size() != 2 || b.shape.size() != 2)
        throw InputError("needs 2-d operands, but got " + shapeToString(a.shape) + " and " + shapeToString(b.shape));
    if (a.shape[1] != b.shape[0])
        throw InputError("inner dimensions differ: " + shapeToString(a.shape) + " times " + shapeToString(b.shape));
    if (sparseProduct && a.kind == ValueKind::Plain)
        throw InputError("the first operand must be sparse (COO or CSR) or masked, but it is dense; use mm for "
                         "dense products");
    MaskedValue<T> out;
    out.shape = {a.shape[0], b.shape[1]};
    out.values.resize(static_cast<std::size_t>(numel(out.shape)));
    Eigen::Map<RowMajor<T>> product(out.values.data(), out.shape[0], out.shape[1]);
    if (!a.mask && !b.mask) // every element specified: the operands in place (gradcheck evaluates this thousands of times)
        multiplyRows<T>(Eigen::Map<const RowMajor<T>>(a.values.data(), a.shape[0], a.shape[1]),
                        Eigen::Map<const RowMajor<T>>(b.values.data(), b.shape[0], b.shape[1]), product);
    else
        multiplyRows<T>(zeroFilled(a), zeroFilled(b), product);

    const bool masked = a.kind == ValueKind::Masked || b.kind == ValueKind::Masked;
    const bool structural = sparseProduct && b.kind == ValueKind::Sparse;
    if (masked || structural) {
        const RowMajor<double> counts = patternMatrix(a) * patternMatrix(b);
        Mask mask(out.values.size());
        for (std::size_t i = 0; i < mask.size(); ++i)
            mask[i] = counts.data()[i] > 0.0;
        out.mask = std::make_shared<const Mask>(std::move(mask));
        out.kind = masked ? ValueKind::Masked : ValueKind::Sparse;
        out.storage = masked ? Layout::Dense : (b.storage == Layout::Dense ? Layout::Coo : b.storage);
        if (masked)
            for (std::size_t i = 0; i < out.values.size(); ++i)
                if (!(*out.mask)[i])
                    out.values[i] = T(0);
    }
    return out;
}

template MaskedValue<float> matmul<float>(const MaskedValue<float> &, const MaskedValue<float> &, bool);
template MaskedValue<double> matmul<double>(const MaskedValue<double> &, const MaskedValue<double> &, bool);

} // namespace sparsity::core
