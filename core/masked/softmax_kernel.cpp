#include "core/masked/softmax_kernel.h"

#include "core/masked/element_ops.h"
#include "core/masked/elementwise_program.h"
#include "core/masked/mask_select.h"

#include <Eigen/Core>
#include <cmath>
#include <cstring>
#include <limits>

namespace sparsity::core {
namespace {

template <class T>
using Array = Eigen::Array<T, Eigen::Dynamic, 1>;

// The lane buffers of one thread: the shifted values and their exponentials.
template <class T>
struct LaneBuffers {
    Array<T> shifted, exponentials;
};

// A contiguous lane (softmax over the last dim): vectorised in T as torch computes it, the
// sum accumulated in double. Unspecified elements take no share; they are excluded from the
// maximum as -inf but exponentiated as exp(0), then zeroed: exp(-inf) through the polynomial
// runs into denormals, which cost a microcode assist per element on x86.
// Every step that is not elementwise exact runs on the buffers, which start aligned: Eigen
// peels an unaligned head off with the scalar exp and starts its sums there, so a lane
// computed where it lies in the output gave other last bits at another offset (a block of
// rows of the tensor, `eval` streamed, against the whole).
template <class T>
void contiguousLane(const T *x, const std::uint8_t *m, std::int64_t n, bool logarithm, T *y, LaneBuffers<T> &buffers)
{
    const auto size = static_cast<Eigen::Index>(n);
    auto &shifted = buffers.shifted;
    auto &exponentials = buffers.exponentials;
    shifted.resize(size);
    if (m)
        selectSpecified(x, m, n, -std::numeric_limits<T>::infinity(), shifted.data());
    else
        shifted = Eigen::Map<const Array<T>>(x, size);
    const T maximum = shifted.template maxCoeff<Eigen::PropagateNaN>();
    shifted = Eigen::Map<const Array<T>>(x, size) - maximum;
    if (m)
        selectSpecified(shifted.data(), m, n, T(0), shifted.data());
    exponentials = shifted.exp();
    if (m)
        selectSpecified(exponentials.data(), m, n, T(0), exponentials.data());
    const double total = exponentials.template cast<double>().sum();
    Eigen::Map<Array<T>> out(y, size);
    if (logarithm)
        out = shifted - static_cast<T>(std::log(total));
    else
        out = exponentials / static_cast<T>(total);
    if (m && logarithm)
        selectSpecified(y, m, n, T(0), y); // unspecified elements: 0
}

// A strided lane's three steps, element by element, in double: the whole tensor's lanes and
// ColumnSoftmax's blocks of rows both take them in lane order, so they agree bit for bit.
template <class T>
double withMaximum(double maximum, T x)
{
    return maximumOf(maximum, static_cast<double>(x));
}

template <class T>
double withShare(double total, T x, double maximum)
{
    return total + std::exp(static_cast<double>(x) - maximum);
}

// `logTotal` is std::log(total), taken once per lane.
template <class T>
T stridedResult(T x, double maximum, double total, double logTotal, bool logarithm)
{
    const double shifted = static_cast<double>(x) - maximum;
    return static_cast<T>(logarithm ? shifted - logTotal : std::exp(shifted) / total);
}

// A strided lane (softmax over an inner dim), in double.
template <class T>
void stridedLane(const T *x, const std::uint8_t *m, std::int64_t n, std::int64_t stride, bool logarithm, T *y)
{
    auto specified = [&](std::int64_t j) { return !m || m[j * stride]; };
    double maximum = -std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j < n; ++j)
        if (specified(j))
            maximum = withMaximum(maximum, x[j * stride]);
    double total = 0.0;
    for (std::int64_t j = 0; j < n; ++j)
        if (specified(j))
            total = withShare(total, x[j * stride], maximum);
    const double logTotal = std::log(total);
    for (std::int64_t j = 0; j < n; ++j)
        y[j * stride] = !specified(j) ? T(0) : stridedResult(x[j * stride], maximum, total, logTotal, logarithm);
}

// Whether the lane of `n` elements at `stride` starting at `at` holds the same bits, values and
// mask bytes, in `a` and `b` (masks both present or both absent).
template <class T>
bool sameLane(const MaskedValue<T> &a, const MaskedValue<T> &b, std::int64_t at, std::int64_t n, std::int64_t stride)
{
    const auto bytes = [&](const auto *x, const auto *y, std::size_t size) {
        if (stride == 1)
            return std::memcmp(x + at, y + at, static_cast<std::size_t>(n) * size) == 0;
        for (std::int64_t j = 0; j < n; ++j)
            if (std::memcmp(x + at + j * stride, y + at + j * stride, size) != 0)
                return false;
        return true;
    };
    return bytes(a.values.data(), b.values.data(), sizeof(T))
           && (!a.mask || bytes(a.mask->data(), b.mask->data(), sizeof(std::uint8_t)));
}

template <class T>
void copyLane(const T *from, std::int64_t n, std::int64_t stride, T *to)
{
    for (std::int64_t j = 0; j < n; ++j)
        to[j * stride] = from[j * stride];
}

} // namespace

template <class T>
MaskedValue<T> softmax(const MaskedValue<T> &input, int dim, bool logarithm, const SoftmaxBaseline<T> *baseline)
{
    const auto d = static_cast<std::size_t>(dim);
    const std::int64_t outer = numel(input.shape, 0, d);
    const std::int64_t n = input.shape[d];
    const std::int64_t inner = numel(input.shape, d + 1, input.shape.size());
    MaskedValue<T> out{input.shape, {}, input.mask, input.kind, input.storage, false};
    out.values.resize(input.values.size());
    const T *x = input.values.data();
    const std::uint8_t *m = input.mask ? input.mask->data() : nullptr;
    T *y = out.values.data();

    const bool reuses = baseline && baseline->input.shape == input.shape && baseline->result.shape == input.shape
                        && !baseline->input.mask == !input.mask;

    auto lane = [&](std::int64_t index, LaneBuffers<T> &buffers) {
        const std::int64_t base = (index / inner) * n * inner + index % inner;
        if (reuses && sameLane(input, baseline->input, base, n, inner))
            copyLane(baseline->result.values.data() + base, n, inner, y + base);
        else if (inner == 1)
            contiguousLane(x + base, m ? m + base : nullptr, n, logarithm, y + base, buffers);
        else
            stridedLane(x + base, m ? m + base : nullptr, n, inner, logarithm, y + base);
    };
    // Small inputs stay clear of OpenMP altogether: even a team of one costs a call into it.
    if (static_cast<std::int64_t>(input.values.size()) < kParallelThreshold) {
        LaneBuffers<T> buffers;
        for (std::int64_t index = 0; index < outer * inner; ++index)
            lane(index, buffers);
        return out;
    }
#pragma omp parallel
    {
        LaneBuffers<T> buffers;
#pragma omp for schedule(static)
        for (std::int64_t index = 0; index < outer * inner; ++index)
            lane(index, buffers);
    }
    return out;
}

template MaskedValue<float> softmax<float>(const MaskedValue<float> &, int, bool, const SoftmaxBaseline<float> *);
template MaskedValue<double> softmax<double>(const MaskedValue<double> &, int, bool, const SoftmaxBaseline<double> *);

template <class T>
ColumnSoftmax<T>::ColumnSoftmax(std::int64_t columns)
    : m_columns(columns), m_maximum(static_cast<std::size_t>(columns), -std::numeric_limits<double>::infinity()),
      m_total(static_cast<std::size_t>(columns), 0.0)
{
}

template <class T>
void ColumnSoftmax<T>::foldMaximum(const T *rows, const std::uint8_t *mask, std::int64_t count)
{
#pragma omp parallel for schedule(static) if (count * m_columns >= kParallelThreshold)
    for (std::int64_t c = 0; c < m_columns; ++c) {
        const auto k = static_cast<std::size_t>(c);
        for (std::int64_t r = 0; r < count; ++r)
            if (!mask || mask[r * m_columns + c])
                m_maximum[k] = withMaximum(m_maximum[k], rows[r * m_columns + c]);
    }
}

template <class T>
void ColumnSoftmax<T>::foldTotal(const T *rows, const std::uint8_t *mask, std::int64_t count)
{
#pragma omp parallel for schedule(static) if (count * m_columns >= kParallelThreshold)
    for (std::int64_t c = 0; c < m_columns; ++c) {
        const auto k = static_cast<std::size_t>(c);
        for (std::int64_t r = 0; r < count; ++r)
            if (!mask || mask[r * m_columns + c])
                m_total[k] = withShare(m_total[k], rows[r * m_columns + c], m_maximum[k]);
    }
}

template <class T>
void ColumnSoftmax<T>::apply(const T *rows, const std::uint8_t *mask, std::int64_t count, bool logarithm, T *out) const
{
    std::vector<double> logTotal(m_total.size());
    for (std::size_t k = 0; k < m_total.size(); ++k)
        logTotal[k] = std::log(m_total[k]);
#pragma omp parallel for schedule(static) if (count * m_columns >= kParallelThreshold)
    for (std::int64_t r = 0; r < count; ++r)
        for (std::int64_t c = 0; c < m_columns; ++c) {
            const auto k = static_cast<std::size_t>(c);
            const auto i = r * m_columns + c;
            out[i] = mask && !mask[i] ? T(0) : stridedResult(rows[i], m_maximum[k], m_total[k], logTotal[k], logarithm);
        }
}

template <class T>
MaskedValue<T> ColumnSoftmax<T>::applied(const MaskedValue<T> &rows, bool logarithm) const
{
    MaskedValue<T> out{rows.shape, {}, rows.mask, rows.kind, rows.storage, false};
    out.values.resize(rows.values.size());
    apply(rows.values.data(), rows.mask ? rows.mask->data() : nullptr, rows.shape.empty() ? 0 : rows.shape[0], logarithm,
          out.values.data());
    return out;
}

template class ColumnSoftmax<float>;
template class ColumnSoftmax<double>;

} // namespace sparsity::core
