#pragma once
// Qt-free progress and cancellation for long-running core functions (PlotJuggler style):
// the callback gets (done, total) and returns false to cancel.
#include <cstdint>
#include <functional>

namespace sparsity::core {

using ProgressCallback = std::function<bool(std::int64_t done, std::int64_t total)>;

class Cancelled : public std::exception {
public:
    const char *what() const noexcept override { return "cancelled"; }
};

inline void reportProgress(const ProgressCallback &progress, std::int64_t done, std::int64_t total)
{
    if (progress && !progress(done, total))
        throw Cancelled();
}

} // namespace sparsity::core
