#include "core/tensor/layout.h"

#include <array>

namespace sparsity::core {
namespace {

constexpr std::array kLayouts{
    LayoutInfo{Layout::Dense, "dense", 0, -1, false, false, false, false},
    LayoutInfo{Layout::Coo, "coo", 0, -1, true, false, false, true},
    LayoutInfo{Layout::Csr, "csr", 2, 2, true, true, false, true},
    LayoutInfo{Layout::Csc, "csc", 2, 2, true, true, false, true},
    LayoutInfo{Layout::RowSparse, "row_sparse", 1, -1, true, false, true, true},
};

} // namespace

const LayoutInfo &layoutInfo(Layout layout) { return kLayouts[static_cast<std::size_t>(layout)]; }

std::span<const LayoutInfo> allLayouts() { return kLayouts; }

std::optional<Layout> parseLayout(std::string_view name)
{
    for (const auto &info : kLayouts)
        if (info.name == name)
            return info.layout;
    return std::nullopt;
}

bool layoutAcceptsRank(Layout layout, int rank)
{
    const auto &info = layoutInfo(layout);
    return rank >= info.minRank && (info.maxRank < 0 || rank <= info.maxRank);
}

} // namespace sparsity::core
