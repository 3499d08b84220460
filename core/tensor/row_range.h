#pragma once
// Rows [begin, end) along dim 0: a hyperslab to read, a rank's share of a dataset.
#include <cstdint>
#include <string>

namespace sparsity::core {

struct RowRange {
    std::int64_t begin = 0;
    std::int64_t end = 0; // exclusive
    std::int64_t count() const { return end - begin; }
    // A range of [0, total): begin <= end, both within it (an empty range at total too).
    bool within(std::int64_t total) const { return begin >= 0 && begin <= end && end <= total; }
    // "[begin, end)", as messages name a range.
    std::string text() const { return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")"; }
};

} // namespace sparsity::core
