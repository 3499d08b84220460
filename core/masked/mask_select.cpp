#include "core/masked/mask_select.h"

#include "core/util/cpu_clones.h"

#include <algorithm>
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

// Counted in 32-bit lanes per chunk (8 per AVX2 register, not 4 as with an int64 counter).
SPARSITY_CPU_CLONES std::int64_t countSpecified(const std::uint8_t *m, std::int64_t n)
{
    constexpr std::int64_t kChunk = std::int64_t{1} << 20;
    std::int64_t total = 0;
    for (std::int64_t first = 0; first < n; first += kChunk) {
        const std::int64_t last = std::min(n, first + kChunk);
        std::uint32_t count = 0;
#pragma omp simd reduction(+ : count)
        for (std::int64_t i = first; i < last; ++i)
            count += m[i] != 0;
        total += count;
    }
    return total;
}

} // namespace sparsity::core
