#pragma once
// Storage layouts described as data plus capabilities (taco style). Generic code asks
// LayoutInfo what a layout can do instead of switching on its name.
#include <optional>
#include <span>
#include <string_view>

namespace sparsity::core {

enum class Layout { Dense, Coo, Csr, Csc, RowSparse };

struct LayoutInfo {
    Layout layout;
    std::string_view name; // CLI and JSON spelling
    int minRank;
    int maxRank;              // -1: any rank
    bool storesIndices;       // false only for dense
    bool compressed;          // CSR/CSC: an index pointer array over one axis
    bool storesWholeRows;     // row_sparse: the pattern is a set of rows
    bool dropsZerosFromDense; // dense -> this layout keeps only nonzeros (cast_storage)
};

const LayoutInfo &layoutInfo(Layout layout);
std::span<const LayoutInfo> allLayouts();
std::optional<Layout> parseLayout(std::string_view name);
inline std::string_view layoutName(Layout layout) { return layoutInfo(layout).name; }
bool layoutAcceptsRank(Layout layout, int rank);

} // namespace sparsity::core
