#pragma once
// out[i] = m[i] ? v[i] : fill for i < n. Masks are random, so a branch per element would
// mispredict half the time (and GCC compiles the plain conditional to one on SSE2); this is
// written as bit operations that vectorise. `out` may be `v`.
#include <cstdint>

namespace sparsity::core {

void selectSpecified(const float *v, const std::uint8_t *m, std::int64_t n, float fill, float *out);
void selectSpecified(const double *v, const std::uint8_t *m, std::int64_t n, double fill, double *out);

// Number of nonzero bytes among m[0..n).
std::int64_t countSpecified(const std::uint8_t *m, std::int64_t n);

} // namespace sparsity::core
