#pragma once
// Mask arithmetic for binary ops on masked values: equality (torch.masked's default policy,
// with a message that says how two masks differ), intersection (the explicit `intersect`
// policy) and the mask of where(cond, x, y).
#include "core/masked/masked_value.h"

#include <optional>
#include <string>

namespace sparsity::core {

// nullopt when the masks are equal (the same object, or the same bytes); otherwise e.g.
// "3 elements are specified in the left operand only (first at [0, 2]) and 1 in the right
// operand only (first at [1, 1])". Both masks describe tensors of `shape`.
std::optional<std::string> describeMaskDifference(const Mask &left, const Mask &right, const Shape &shape);

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
