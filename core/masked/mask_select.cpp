#include "core/masked/mask_select.h"

#include "core/util/cpu_clones.h"

#include <bit>
#include <type_traits>

namespace sparsity::core {
namespace {

template <class T>
SPARSITY_ALWAYS_INLINE void selectLoop(const T *v, const std::uint8_t *m, std::int64_t n, T fill, T *out)
{
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    const Bits fillBits = std::bit_cast<Bits>(fill);
#pragma omp simd
    for (std::int64_t i = 0; i < n; ++i) {
        const Bits keep = Bits{0} - static_cast<Bits>(m[i] != 0);
        out[i] = std::bit_cast<T>((std::bit_cast<Bits>(v[i]) & keep) | (fillBits & ~keep));
    }
}

} // namespace

SPARSITY_CPU_CLONES void selectSpecified(const float *v, const std::uint8_t *m, std::int64_t n, float fill, float *out)
{
    selectLoop(v, m, n, fill, out);
}

SPARSITY_CPU_CLONES void selectSpecified(const double *v, const std::uint8_t *m, std::int64_t n, double fill, double *out)
{
    selectLoop(v, m, n, fill, out);
}

SPARSITY_CPU_CLONES std::int64_t countSpecified(const std::uint8_t *m, std::int64_t n)
{
    std::int64_t count = 0;
#pragma omp simd reduction(+ : count)
    for (std::int64_t i = 0; i < n; ++i)
        count += m[i] != 0;
    return count;
}

} // namespace sparsity::core
