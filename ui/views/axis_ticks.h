#pragma once
// Where a heatmap's axes put their index labels: whole element indices at a "nice" step (1, 2
// or 5 times a power of ten) wide enough that labels do not crowd, over the part of the grid
// shown. Shared by every heatmap (TensorPreview, MatrixView), so their axes read alike.
#include <cstdint>
#include <vector>

namespace sparsity::ui {

// Indices i with viewStart <= i + 0.5 < viewStart + viewLength (the element's centre is shown)
// that are multiples of the step, the step being the smallest nice one that keeps at least
// `minSpacing` pixels between labels when the view spans `pixels`.
std::vector<std::int64_t> tickIndices(double viewStart, double viewLength, int pixels, int minSpacing);

} // namespace sparsity::ui
