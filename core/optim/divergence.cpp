#include "core/optim/divergence.h"

#include "core/util/errors.h"

#include <cmath>
#include <limits>

namespace sparsity::core {
namespace {

template <class V>
TensorDivergence compareValues(std::string name, const V &a, const V &b, std::int64_t rows)
{
    TensorDivergence d{std::move(name), 0.0, 0};
    if (a.size() != b.size())
        throw InternalError("compareRuns: sizes differ for " + d.name);
    const auto width = rows == 0 ? std::size_t{1} : a.size() / static_cast<std::size_t>(rows);
    for (std::int64_t r = 0; r < rows; ++r) {
        bool differs = false;
        for (std::size_t j = 0; j < width; ++j) {
            const auto k = static_cast<std::size_t>(r) * width + j;
            const double diff = std::abs(static_cast<double>(a[k]) - static_cast<double>(b[k]));
            if (a[k] != b[k]) {
                differs = true;
                d.maxAbsDiff = std::max(d.maxAbsDiff, std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff);
            }
        }
        d.differingRows += differs;
    }
    return d;
}

} // namespace

template <class T>
std::vector<TensorDivergence> compareRuns(const DenseTensor<T> &paramA,
                                          const OptimizerState<T> &stateA,
                                          const DenseTensor<T> &paramB,
                                          const OptimizerState<T> &stateB)
{
    const auto rows = parameterRows(paramA.shape);
    std::vector<TensorDivergence> out{compareValues("param", paramA.values, paramB.values, rows)};
    for (std::size_t k = 0; k < stateA.buffers.size() && k < stateB.buffers.size(); ++k)
        out.push_back(
            compareValues(stateA.buffers[k].name, stateA.buffers[k].value.values, stateB.buffers[k].value.values, rows));
    out.push_back(compareValues("last_update", stateA.lastUpdate, stateB.lastUpdate, rows));
    return out;
}

template std::vector<TensorDivergence> compareRuns<float>(const DenseTensor<float> &,
                                                          const OptimizerState<float> &,
                                                          const DenseTensor<float> &,
                                                          const OptimizerState<float> &);
template std::vector<TensorDivergence> compareRuns<double>(const DenseTensor<double> &,
                                                           const OptimizerState<double> &,
                                                           const DenseTensor<double> &,
                                                           const OptimizerState<double> &);

} // namespace sparsity::core
