#pragma once
// Colour-mapped images of 2-d tensor slices, kept free of widgets so tests can check pixels.
// Values map to a diverging blue-white-red scale symmetric around 0. Full colour is the 99.5th
// percentile of |value| (robust: one outlier must not wash out the whole picture); larger
// values saturate.
// Unspecified elements of masked tensors are drawn in a neutral grey checker so they never
// read as zero; elements a sparsifier preview prunes are drawn in kPrunedColour.
#include "core/tensor/dense_tensor.h"
#include "core/tensor/tensor.h"

#include <QColor>
#include <QImage>

namespace sparsity::ui {

struct HeatmapImage {
    QImage image;        // one pixel per element
    double maxAbs = 0.0; // the value that maps to full colour
    double trueMaxAbs = 0.0;
    // Which non-finite values it has (specified ones), for the legend's entries.
    bool hasNaN = false, hasPosInf = false, hasNegInf = false;
};

inline constexpr QRgb kPrunedColour = 0xff2b2b2b;
// Non-finite values, each its own colour, none on the diverging scale.
inline constexpr QRgb kNaNColour = 0xffff00ff;    // magenta
inline constexpr QRgb kPosInfColour = 0xffffd700; // gold: beyond the reds
inline constexpr QRgb kNegInfColour = 0xff00c8c8; // cyan: beyond the blues
// A selection is drawn as a wash over the heatmap: selected elements clear, the rest whitened.
inline constexpr QRgb kSelectedWash = qRgba(0, 0, 0, 0);
inline constexpr QRgb kUnselectedWash = qRgba(255, 255, 255, 170);

QColor divergingColour(double value, double maxAbs);

// The colour scale of `values` (its specified elements): maxAbs is the 99.5th percentile of
// |value|, trueMaxAbs the largest.
struct ColourScale {
    double maxAbs = 0.0;
    double trueMaxAbs = 0.0;
};
ColourScale colourScaleOf(const double *values, std::size_t count, const core::Mask *specified);
inline ColourScale colourScaleOf(const core::DenseTensor<double> &values, const core::Mask *specified)
{
    return colourScaleOf(values.values.data(), values.values.size(), specified);
}

// `values` is [rows x cols] (a 1-d tensor is drawn as one row); `specified` and `pruned` are
// null or one byte per element. The colour scale ignores pruning, so a preview does not
// rescale what it keeps; `scale` (else the values' own) lets the slices of an N-d tensor
// share the whole tensor's.
HeatmapImage renderHeatmap(const core::DenseTensor<double> &values,
                           const core::Mask *specified,
                           const core::Mask *pruned = nullptr,
                           const ColourScale *scale = nullptr);

// `values` drawn into at most `size` pixels with the colour scale `maxAbs`: each pixel shows
// the element of largest |value| in its block, so a few large entries (a sparse difference
// map) stay visible where nearest-neighbour shrinking would drop them.
QImage renderMaxAbsPooled(const core::DenseTensor<double> &values, double maxAbs, QSize size);

// The part `source` (in pixels) of a rendered heatmap shrunk to `size`: each pixel shows the
// most coloured pixel of its block (the strongest value kept), or the darkest when none has
// a colour (pruned, unspecified), so single elements stay visible when thousands of rows
// share a screen row; darkened towards kPrunedColour by the block's pruned fraction, so
// pruning stays visible too.
QImage poolImage(const QImage &image, const QRect &source, QSize size);

} // namespace sparsity::ui
