#pragma once
// Colour-mapped images of 2-d tensor slices, kept free of widgets so tests can check pixels.
// Values map through a ColourScale (colour_map.h); unspecified elements of masked tensors are
// drawn in a grey checker so they never read as zero; elements a sparsifier preview prunes
// are drawn in prunedColourOf(the map).
#include "ui/views/colour_map.h"

#include <QImage>
#include <memory>

namespace sparsity::ui {

struct HeatmapImage {
    QImage image; // one pixel per element
    ColourScale scale;
    // Which non-finite values it has (specified ones), for the legend's entries.
    bool hasNaN = false, hasPosInf = false, hasNegInf = false;
};

// A matrix ready to show (MatrixView): its values, shared rather than copied (one Jacobian of
// a 64 x 64 input is 128 MiB), and its heatmap, rendered on whichever thread made the matrix
// (a job's), so the GUI thread only hands it over.
struct MatrixPicture {
    std::shared_ptr<const core::DenseTensor<double>> values;
    HeatmapImage heatmap;
};

// A selection is drawn as a wash over the heatmap: selected elements clear, the rest whitened.
inline constexpr QRgb kSelectedWash = qRgba(0, 0, 0, 0);
inline constexpr QRgb kUnselectedWash = qRgba(255, 255, 255, 170);

// `values` is [rows x cols] (a 1-d tensor is drawn as one row); `specified` and `pruned` are
// null or one byte per element. `scale` defaults to the values' own robust diverging one; the
// scale ignores pruning, so a preview does not rescale what it keeps, and callers pass one to
// let the slices of an N-d tensor (or the windows of a large table) share it.
HeatmapImage renderHeatmap(const core::DenseTensor<double> &values,
                           const core::Mask *specified,
                           const core::Mask *pruned = nullptr,
                           const ColourScale *scale = nullptr);

// `values` [rows x cols] and their heatmap on `scale` (default: their own robust range).
MatrixPicture pictureOf(core::DenseTensor<double> values, const ColourScale *scale = nullptr);

// `values` drawn into at most `size` pixels with `scale`: each pixel shows its block's most
// prominent element (diverging: farthest from the range's middle; sequential: the largest),
// so a few large entries (a sparse difference map) stay visible where nearest-neighbour
// shrinking would drop them. Non-finite values always show.
QImage renderPooled(const core::DenseTensor<double> &values, const ColourScale &scale, QSize size);
// The element pixel `pixel` of renderPooled(values, scale, size) shows, and the block of cells
// it covers: what a tooltip over a pooled heatmap names.
struct PooledCell {
    std::int64_t row = 0, col = 0;   // the element shown
    std::int64_t row0 = 0, row1 = 0; // the block: rows [row0, row1), columns [col0, col1)
    std::int64_t col0 = 0, col1 = 0;
};
PooledCell pooledCell(const core::DenseTensor<double> &values, const ColourScale &scale, QSize size, QPoint pixel);

// The part `source` (in pixels) of a heatmap rendered with `map` shrunk to `size`: each pixel
// shows the most prominent pixel of its block (poolStrength), so single elements stay
// visible when thousands of rows share a screen row; moved towards prunedColourOf(map) by the
// block's pruned fraction, so pruning stays visible too.
QImage poolImage(const QImage &image, const QRect &source, QSize size, ColourMap map = ColourMap::Diverging);
// The pixel of `image` whose colour poolImage(image, source, size, map), drawn stretched over
// an area of `size`, shows at point `at` of that area: the element that spot stands for, for
// hover and tooltips.
QPoint pooledImagePixel(const QImage &image, const QRect &source, QSize size, ColourMap map, QPoint at);

} // namespace sparsity::ui
