#include "core/masked/mask_algebra.h"

#include <cstring>

namespace sparsity::core {

std::string coordinatesOf(std::int64_t i, const Shape &shape)
{
    std::vector<std::int64_t> coordinates(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
        coordinates[d] = shape[d] > 0 ? i % shape[d] : 0;
        i = shape[d] > 0 ? i / shape[d] : 0;
    }
    return shapeToString(coordinates);
}

std::optional<std::string> describeMaskDifference(const Mask &left, const Mask &right, const Shape &shape)
{
    if (&left == &right || (left.size() == right.size() && std::memcmp(left.data(), right.data(), left.size()) == 0))
        return std::nullopt;
    std::int64_t leftOnly = 0, rightOnly = 0, firstLeft = -1, firstRight = -1;
    for (std::size_t i = 0; i < left.size(); ++i) {
        const bool l = left[i] != 0, r = right[i] != 0;
        if (l && !r && leftOnly++ == 0)
            firstLeft = static_cast<std::int64_t>(i);
        if (r && !l && rightOnly++ == 0)
            firstRight = static_cast<std::int64_t>(i);
    }
    auto part = [&](std::int64_t count, std::int64_t first, const char *side) {
        std::string text = std::to_string(count) + (count == 1 ? " element is" : " elements are") + " specified in the " + side
                           + " operand only";
        if (first >= 0)
            text += " (first at " + coordinatesOf(first, shape) + ")";
        return text;
    };
    return part(leftOnly, firstLeft, "left") + " and " + part(rightOnly, firstRight, "right");
}

SharedMask intersectMasks(const Mask &left, const Mask &right)
{
    Mask out(left.size());
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<std::uint8_t>(left[i] & right[i]);
    return std::make_shared<const Mask>(std::move(out));
}

template <class T>
SharedMask whereMask(const Buffer<T> &condition, const Mask *x, const Mask *y, std::size_t size)
{
    Mask out(size);
    const bool broadcastCondition = condition.size() == 1;
    for (std::size_t i = 0; i < size; ++i) {
        const bool pickX = condition[broadcastCondition ? 0 : i] != T(0);
        const Mask *from = pickX ? x : y;
        out[i] = from ? (*from)[i] : 1;
    }
    return std::make_shared<const Mask>(std::move(out));
}

SharedMask filledMask(std::size_t size, bool bit) { return std::make_shared<const Mask>(size, static_cast<std::uint8_t>(bit)); }

template SharedMask whereMask<float>(const Buffer<float> &, const Mask *, const Mask *, std::size_t);
template SharedMask whereMask<double>(const Buffer<double> &, const Mask *, const Mask *, std::size_t);

} // namespace sparsity::core
