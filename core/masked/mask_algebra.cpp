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

MaskDifference maskDifference(const Mask &left, const Mask &right)
{
    MaskDifference difference;
    if (&left == &right || (left.size() == right.size() && std::memcmp(left.data(), right.data(), left.size()) == 0))
        return difference;
    for (std::size_t i = 0; i < left.size(); ++i) {
        const bool l = left[i] != 0, r = right[i] != 0;
        if (l && !r && difference.leftOnly++ == 0)
            difference.firstLeft = static_cast<std::int64_t>(i);
        if (r && !l && difference.rightOnly++ == 0)
            difference.firstRight = static_cast<std::int64_t>(i);
    }
    return difference;
}

void MaskDifference::append(const MaskDifference &later, std::int64_t offset)
{
    if (firstLeft < 0 && later.firstLeft >= 0)
        firstLeft = later.firstLeft + offset;
    if (firstRight < 0 && later.firstRight >= 0)
        firstRight = later.firstRight + offset;
    leftOnly += later.leftOnly;
    rightOnly += later.rightOnly;
}

std::string MaskDifference::describe(const Shape &shape) const
{
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
