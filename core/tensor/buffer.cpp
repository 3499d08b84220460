#include "core/tensor/buffer.h"

#include <cstdlib>
#include <sys/mman.h>

namespace sparsity::core::detail {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}

void *allocateLarge(std::size_t bytes)
{
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void *block = std::aligned_alloc(kHugePage, rounded);
    if (!block)
        throw std::bad_alloc();
    // Advice only: where THP is off this is a no-op and the block is still usable.
    ::madvise(block, rounded, MADV_HUGEPAGE);
    return block;
}

void freeLarge(void *block) noexcept { std::free(block); }

} // namespace sparsity::core::detail
