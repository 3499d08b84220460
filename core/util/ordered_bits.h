#pragma once
// A float's bit pattern as an unsigned number in the float's order: a negative value's bits
// all flipped, a positive one's sign bit set (branch-free). -0 falls just below +0, and NaNs
// beyond the infinities. The k-lowest selection (core/parallel/lowest_across_ranks.h) takes
// radix digits of it; the sparsify report's histogram (core/sparsify/sparsify_tally.cpp)
// bisects and tabulates values in its order.
#include <bit>
#include <cstdint>
#include <type_traits>

namespace sparsity::core {

template <class T> // float or double
using OrderedBits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <class T>
OrderedBits<T> orderedBitsOf(T value)
{
    using Bits = OrderedBits<T>;
    constexpr int kTop = 8 * sizeof(T) - 1;
    const auto bits = std::bit_cast<Bits>(value);
    const auto negative = static_cast<Bits>(static_cast<std::make_signed_t<Bits>>(bits) >> kTop); // all ones or zero
    return bits ^ (negative | (Bits{1} << kTop));
}

// The value whose ordered bits are `ordered`.
template <class T>
T fromOrderedBits(OrderedBits<T> ordered)
{
    using Bits = OrderedBits<T>;
    constexpr Bits kSign = Bits{1} << (8 * sizeof(T) - 1);
    return std::bit_cast<T>((ordered & kSign) ? (ordered & ~kSign) : ~ordered);
}

} // namespace sparsity::core
