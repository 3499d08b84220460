#pragma once
// Buffer<T>: the storage of tensor values and indices. A std::vector with two changes:
//  * resize() leaves elements uninitialised: buffers are filled right after allocation (by
//    HDF5 reads or conversion kernels), and zero-filling 256 MB first is a full extra pass;
//  * blocks of 1 MiB or more are fresh anonymous mappings marked for transparent huge pages
//    (as PyTorch's CPU allocator does): first-touch page faults dominate the cost of filling
//    fresh memory otherwise (measured in docs/PERFORMANCE.md). Fresh mappings are zero, so
//    zeroedBuffer() skips its fill pass for them.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace sparsity::core {

namespace detail {
inline constexpr std::size_t kLargeBlock = std::size_t{1} << 20;
inline constexpr std::size_t kHugePage = std::size_t{2} << 20;
void *allocateLarge(std::size_t bytes); // zero-filled; throws std::bad_alloc
void freeLarge(void *block, std::size_t bytes) noexcept;
} // namespace detail

// Maps the pages under [data, data + bytes) that are not mapped yet, keeping what every page
// holds (MADV_POPULATE_WRITE, Linux 5.14+; a no-op on an older kernel), on the OpenMP threads.
// The kernel zeroes a fresh page at its first touch, and on the VMs this runs on that costs as
// much as copying the page from the page cache: threads that would otherwise wait take that
// cost off the one that will write the pages (an HDF5 read on the I/O thread).
void populateForWrite(void *data, std::size_t bytes) noexcept;

template <class T, class Base = std::allocator<T>>
class DefaultInitAllocator : public Base {
    using Traits = std::allocator_traits<Base>;

public:
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U, typename Traits::template rebind_alloc<U>>;
    };
    using Base::Base;

    T *allocate(std::size_t n)
    {
        if (n * sizeof(T) >= detail::kLargeBlock)
            return static_cast<T *>(detail::allocateLarge(n * sizeof(T)));
        return Base::allocate(n);
    }
    void deallocate(T *p, std::size_t n) noexcept
    {
        if (n * sizeof(T) >= detail::kLargeBlock)
            detail::freeLarge(p, n * sizeof(T));
        else
            Base::deallocate(p, n);
    }

    template <class U>
    void construct(U *ptr) noexcept(std::is_nothrow_default_constructible_v<U>)
    {
        ::new (static_cast<void *>(ptr)) U;
    }
    template <class U, class... Args>
    void construct(U *ptr, Args &&...args)
    {
        Traits::construct(static_cast<Base &>(*this), ptr, std::forward<Args>(args)...);
    }
};

template <class T>
using Buffer = std::vector<T, DefaultInitAllocator<T>>;

// `count` zeros. Large buffers come zeroed from the system, so only small ones are filled.
template <class T>
Buffer<T> zeroedBuffer(std::size_t count)
{
    Buffer<T> buffer;
    buffer.resize(count);
    if (count * sizeof(T) < detail::kLargeBlock)
        std::fill(buffer.begin(), buffer.end(), T{});
    return buffer;
}

} // namespace sparsity::core
