#include "core/tensor/shape.h"

#include "core/util/errors.h"

namespace sparsity::core {

std::int64_t checkedNumel(const Shape &shape)
{
    std::int64_t total = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] < 0)
            throw errors::mustBe("shape " + shapeToString(shape), "have non-negative extents",
                                 "extent " + std::to_string(shape[d]) + " in dim " + std::to_string(d));
        if (__builtin_mul_overflow(total, shape[d], &total))
            throw errors::mustBe("shape " + shapeToString(shape), "have at most 2^63-1 elements",
                                 "an element count that overflows int64");
    }
    return total;
}

std::int64_t numel(const Shape &shape) { return numel(shape, 0, shape.size()); }

std::int64_t numel(const Shape &shape, std::size_t first, std::size_t last)
{
    std::int64_t total = 1;
    for (std::size_t d = first; d < last; ++d)
        total *= shape[d];
    return total;
}

std::string shapeToString(const Shape &shape)
{
    std::string text = "[";
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (d)
            text += ", ";
        text += std::to_string(shape[d]);
    }
    return text + "]";
}

std::optional<int> wrappedDim(std::int64_t written, std::size_t rank)
{
    const auto extent = static_cast<std::int64_t>(rank);
    const auto dim = written < 0 ? written + extent : written;
    if (dim < 0 || dim >= extent)
        return std::nullopt;
    return static_cast<int>(dim);
}

} // namespace sparsity::core
