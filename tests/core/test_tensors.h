#pragma once
// Deterministic random tensors for tests: a dense oracle plus the same data in any layout.
#include "core/tensor/tensor.h"
#include "core/tensor/tensor_ops.h"

#include <QTest>
#include <random>

namespace sparsity::test {

// Values in [-2, 2] \ {0} with probability `density`, else exactly 0.
template <class T>
core::DenseTensor<T> randomDense(const core::Shape &shape, double density, unsigned seed)
{
    auto dense = core::makeDense<T>(shape);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> value(0.25, 2.0);
    std::bernoulli_distribution keep(density), negative(0.5);
    for (auto &v : dense.values)
        v = keep(rng) ? static_cast<T>(negative(rng) ? -value(rng) : value(rng)) : T{};
    return dense;
}

// A dense float64 tensor holding `values` (row-major) in `shape`.
inline core::Tensor denseTensor(core::Shape shape, const std::vector<double> &values)
{
    core::DenseTensor<double> tensor{std::move(shape), {}};
    tensor.values.assign(values.begin(), values.end());
    return core::Tensor(core::Storage{std::move(tensor)});
}

inline core::Mask randomMask(std::size_t size, double density, unsigned seed)
{
    std::mt19937 rng(seed);
    std::bernoulli_distribution keep(density);
    core::Mask mask(size);
    for (auto &m : mask)
        m = keep(rng);
    return mask;
}

inline core::Tensor randomTensor(core::DType dtype, const core::Shape &shape, double density, unsigned seed)
{
    if (dtype == core::DType::Float32)
        return core::Tensor(core::Storage{randomDense<float>(shape, density, seed)});
    return core::Tensor(core::Storage{randomDense<double>(shape, density, seed)});
}

// Exact comparison of two tensors through their dense double form and specified masks.
inline void compareDense(const core::Tensor &actual, const core::Tensor &expected)
{
    QCOMPARE(actual.shape(), expected.shape());
    const auto a = core::toDenseDouble(actual);
    const auto e = core::toDenseDouble(expected);
    QCOMPARE(a.values.size(), e.values.size());
    for (std::size_t k = 0; k < a.values.size(); ++k)
        if (a.values[k] != e.values[k])
            QFAIL(qPrintable(QStringLiteral("value %1 differs: %2 vs %3").arg(k).arg(a.values[k]).arg(e.values[k])));
    QCOMPARE(core::specifiedMaskDense(actual) == core::specifiedMaskDense(expected), true);
}

} // namespace sparsity::test
