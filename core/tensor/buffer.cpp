#include "core/tensor/buffer.h"

#include <cstdint>
#include <sys/mman.h>

namespace sparsity::core::detail {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::size_t mappedSize(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
} // namespace

void *allocateLarge(std::size_t bytes)
{
    // Anonymous mappings arrive zero-filled (zeroedBuffer relies on it) and are returned to
    // the system on free, so a large tensor never lingers in the heap.
    // Huge pages back only 2 MiB-aligned ranges (measured: random first touches of an
    // unaligned mapping fall back to 4 KiB faults, 3-20x slower), so map with slack and trim.
    const std::size_t size = mappedSize(bytes);
    void *raw = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const auto aligned = (start + kHugePage - 1) & ~(std::uintptr_t{kHugePage} - 1);
    if (aligned > start)
        ::munmap(raw, aligned - start);
    if (const auto tail = start + size + kHugePage - (aligned + size); tail > 0)
        ::munmap(reinterpret_cast<void *>(aligned + size), tail);
    void *block = reinterpret_cast<void *>(aligned);
    // Advice only: where THP is off this is a no-op and the block is still usable.
    ::madvise(block, size, MADV_HUGEPAGE);
    return block;
}

void freeLarge(void *block, std::size_t bytes) noexcept { ::munmap(block, mappedSize(bytes)); }

} // namespace sparsity::core::detail
