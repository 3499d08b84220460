#include "core/masked/softmax_kernel.h"

#include "core/masked/element_ops.h"

#include <cmath>
#include <limits>

namespace sparsity::core {

template <class T>
MaskedValue<T> softmax(const MaskedValue<T> &input, int dim, bool logarithm)
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

#pragma omp parallel for schedule(static)
    for (std::int64_t lane = 0; lane < outer * inner; ++lane) {
        const std::int64_t base = (lane / inner) * n * inner + lane % inner;
        double maximum = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < n; ++j) {
            const std::int64_t i = base + j * inner;
            if (!m || m[i])
                maximum = maximumOf(maximum, static_cast<double>(x[i]));
        }
        double total = 0.0;
        for (std::int64_t j = 0; j < n; ++j) {
            const std::int64_t i = base + j * inner;
            if (!m || m[i])
                total += std::exp(static_cast<double>(x[i]) - maximum);
        }
        const double logTotal = std::log(total);
        for (std::int64_t j = 0; j < n; ++j) {
            const std::int64_t i = base + j * inner;
            if (m && !m[i]) {
                y[i] = T(0);   // unspecified
                continue;
            }
            const double shifted = static_cast<double>(x[i]) - maximum;
            y[i] = static_cast<T>(logarithm ? shifted - logTotal : std::exp(shifted) / total);
        }
    }
    return out;
}

template MaskedValue<float> softmax<float>(const MaskedValue<float> &, int, bool);
template MaskedValue<double> softmax<double>(const MaskedValue<double> &, int, bool);

} // namespace sparsity::core
