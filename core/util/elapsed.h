#pragma once
// Seconds on the steady clock: the compute_seconds and io_seconds the commands report, each
// pipeline timing its reads, kernels and writes the same way.
#include <chrono>

namespace sparsity::core {

using Clock = std::chrono::steady_clock;

inline double secondsBetween(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }
inline double secondsSince(Clock::time_point t) { return secondsBetween(t, Clock::now()); }

} // namespace sparsity::core
