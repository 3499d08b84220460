#pragma once
// A tensor shape: a list of non-negative extents, row-major. The empty list is a 0-d
// (scalar) shape with one element; any zero extent makes an empty tensor.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sparsity::core {

using Shape = std::vector<std::int64_t>;

// Number of elements; throws InputError when an extent is negative or the product
// overflows int64 (absurd shapes in files).
std::int64_t checkedNumel(const Shape &shape);
// Same, without checks, for shapes already validated.
std::int64_t numel(const Shape &shape);
// Product of extents [first, last).
std::int64_t numel(const Shape &shape, std::size_t first, std::size_t last);
std::string shapeToString(const Shape &shape); // "[3, 4]"
// The dim `written` names in a `rank`-d shape, a negative one counted from the end (torch's
// rule: -1 is the last); nullopt when it is out of range.
std::optional<int> wrappedDim(std::int64_t written, std::size_t rank);

} // namespace sparsity::core
