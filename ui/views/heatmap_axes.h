#pragma once
// A heatmap's axes: element indices at a "nice" step (1, 2 or 5 times a power of ten) wide
// enough that labels do not crowd, over the part of the grid shown, row labels at the left of
// the image and column labels below it. Shared by every heatmap (TensorPreview, MatrixView),
// so their axes read alike.
#include <QList>
#include <cstdint>
#include <vector>

class QPainter;
class QPalette;
class QRect;

namespace sparsity::ui {

// A label an axis draws: the element index and where along the axis (pixels) it goes.
struct AxisTick {
    std::int64_t index;
    int position;
};

// Indices i with viewStart <= i + 0.5 < viewStart + viewLength (the element's centre is shown)
// that are multiples of the step, the step being the smallest nice one that keeps at least
// `minSpacing` pixels between labels when the view spans `pixels`.
std::vector<std::int64_t> tickIndices(double viewStart, double viewLength, int pixels, int minSpacing);

// Those indices placed at their elements' centres along pixels [origin, origin + pixels), for a
// window of rows starting at row `base` of the tensor: the ticks are the tensor's row indices,
// multiples of the step in its numbering.
QList<AxisTick> axisTicks(double viewStart, double viewLength, int origin, int pixels, int minSpacing, std::int64_t base = 0);

// Row ticks at the left of `image`, column ticks below it, in the palette's text colour.
void drawAxes(
    QPainter &painter, const QRect &image, const QList<AxisTick> &rows, const QList<AxisTick> &columns, const QPalette &palette);

} // namespace sparsity::ui
