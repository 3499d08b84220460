#include "core/tensor/buffer.h"

#include <algorithm>
#include <cstdint>
#include <sys/mman.h>
#include <unistd.h>

namespace sparsity::core::detail {

namespace {
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

namespace sparsity::core {

void populateForWrite(void *data, std::size_t bytes) noexcept
{
#ifdef MADV_POPULATE_WRITE
    // Whole pages: madvise takes an aligned start, and the pages around the range are the same
    // mapping's (a large Buffer is a 2 MiB-aligned mapping) or the heap's, which this leaves as
    // they are. Pieces of one huge page each, so both threads take some.
    const auto pageSize = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto first = reinterpret_cast<std::uintptr_t>(data) & ~(pageSize - 1);
    const auto end = reinterpret_cast<std::uintptr_t>(data) + bytes;
    const auto pieces = static_cast<std::int64_t>((end - first + detail::kHugePage - 1) / detail::kHugePage);
#pragma omp parallel for schedule(dynamic, 1) if (pieces > 1)
    for (std::int64_t p = 0; p < pieces; ++p) {
        const auto begin = first + static_cast<std::uintptr_t>(p) * detail::kHugePage;
        const auto length = std::min<std::uintptr_t>(detail::kHugePage, end - begin);
        // Errors leave the pages to be mapped at their first write, as without this call.
        ::madvise(reinterpret_cast<void *>(begin), (length + pageSize - 1) & ~(pageSize - 1), MADV_POPULATE_WRITE);
    }
#else
    (void)data;
    (void)bytes;
#endif
}

} // namespace sparsity::core
