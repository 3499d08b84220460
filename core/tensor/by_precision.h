#pragma once
// ByPrecision<F>: one F<float> and one F<double>, the one for the precision a computation runs
// in picked by of<T>() (T is float or double). For state kept across calls of code templated
// on the precision: a writer's scratch values, a stream's spare block, folded softmax columns.
#include <type_traits>

namespace sparsity::core {

template <template <class> class F>
struct ByPrecision {
    F<float> inFloat;
    F<double> inDouble;

    template <class T>
    F<T> &of()
    {
        static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
        if constexpr (std::is_same_v<T, float>)
            return inFloat;
        else
            return inDouble;
    }
    template <class T>
    const F<T> &of() const
    {
        return const_cast<ByPrecision *>(this)->template of<T>();
    }
};

} // namespace sparsity::core
