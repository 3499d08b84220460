#pragma once
// The first exception thrown by the iterations of an OpenMP loop, kept to be thrown once the
// loop has ended: no exception may leave an OpenMP region. The threads go on with the
// iterations left; a caller that should skip them checks failed().
#include <exception>

namespace sparsity::core {

class FirstException {
public:
    // Runs `work`, keeping what it throws if nothing was kept before.
    template <class Work>
    void guard(Work &&work) noexcept
    {
        try {
            work();
        } catch (...) {
#pragma omp critical(sparsity_first_exception)
            if (!m_failure)
                m_failure = std::current_exception();
        }
    }
    // After the loop, on the thread that started it.
    void rethrow() const
    {
        if (m_failure)
            std::rethrow_exception(m_failure);
    }

private:
    std::exception_ptr m_failure;
};

} // namespace sparsity::core
