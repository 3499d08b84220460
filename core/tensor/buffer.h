#pragma once
// Buffer<T>: a std::vector whose resize() leaves elements uninitialised. Tensors are filled
// right after allocation (by HDF5 reads or conversion kernels), and zero-filling a 256 MB
// buffer first would cost a full extra pass over memory.
#include <memory>
#include <vector>

namespace sparsity::core {

template <class T, class Base = std::allocator<T>>
class DefaultInitAllocator : public Base {
    using Traits = std::allocator_traits<Base>;

public:
    template <class U>
    struct rebind {
        using other = DefaultInitAllocator<U, typename Traits::template rebind_alloc<U>>;
    };
    using Base::Base;

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

} // namespace sparsity::core
