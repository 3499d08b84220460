#pragma once
// Mask arithmetic for binary ops on masked values: equality (torch.masked's default policy,
// with a message that says how two masks differ), intersection (the explicit `intersect`
// policy) and the mask of where(cond, x, y).
#include "core/masked/masked_value.h"

#include <optional>
#include <string>

namespace sparsity::core {

// How two masks of one shape differ: how many elements each operand alone specifies, and the
// first of them (flat indices, -1 for none). A streamed evaluation adds up its blocks'.
struct MaskDifference {
    std::int64_t leftOnly = 0, rightOnly = 0;
    std::int64_t firstLeft = -1, firstRight = -1;

    bool empty() const { return leftOnly == 0 && rightOnly == 0; }
    // Adds the difference of elements that follow these ones, numbered from `offset` (the
    // first flat index of a later block of rows).
    void append(const MaskDifference &later, std::int64_t offset);
    // "3 elements are specified in the left operand only (first at [0, 2]) and 1 element is
    // specified in the right operand only (first at [1, 1])": of a tensor of `shape`.
    std::string describe(const Shape &shape) const;
};

// Empty when the masks are equal (the same object, or the same bytes).
MaskDifference maskDifference(const Mask &left, const Mask &right);

// Element-wise AND.
SharedMask intersectMasks(const Mask &left, const Mask &right);

// where(cond, x, y): x's bit where cond is nonzero, else y's. A null mask is all specified.
template <class T>
SharedMask whereMask(const Buffer<T> &condition, const Mask *x, const Mask *y, std::size_t size);

// A mask of `size` elements, every one `bit` (a broadcast 0-d masked value).
SharedMask filledMask(std::size_t size, bool bit);

// "[1, 2]": the coordinates of flat index `i` in `shape`.
std::string coordinatesOf(std::int64_t i, const Shape &shape);

} // namespace sparsity::core
