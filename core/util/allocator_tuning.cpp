#include "core/util/allocator_tuning.h"

#include <malloc.h>

namespace sparsity::core {

void retainFreedHeapMemory()
{
    constexpr int kRetained = 256 << 20;
    ::mallopt(M_MMAP_THRESHOLD, 32 << 20); // the largest glibc allows; fixed, not adaptive
    ::mallopt(M_TRIM_THRESHOLD, kRetained);
    ::mallopt(M_TOP_PAD, 16 << 20);
}

} // namespace sparsity::core
