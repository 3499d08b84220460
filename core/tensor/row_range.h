#pragma once
// Rows [begin, end) along dim 0: a hyperslab to read, a rank's share of a dataset.
#include <cstdint>

namespace sparsity::core {

struct RowRange {
    std::int64_t begin = 0;
    std::int64_t end = 0; // exclusive
    std::int64_t count() const { return end - begin; }
};

} // namespace sparsity::core
