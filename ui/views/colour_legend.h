#pragma once
// The colour-scale legend every heatmap draws beside its image: the colour map's bar with its
// top, middle and bottom values (≥/≤ when the data goes beyond), and NaN / ±Inf swatches.
#include "ui/views/heatmap_image.h"

class QFontMetrics;
class QPainter;
class QPalette;
class QRect;

namespace sparsity::ui {

// Draws the bar in `bar` (its labels go to the right of it) in the widget's `palette`, and
// below it a swatch for each of NaN, +Inf and -Inf the heatmap has. Returns the y below
// what it drew.
// How wide the legend is beside a bar `barWidth` wide: its widest label decides, so labels
// such as "≥1.23e+06" are never clipped.
int colourLegendWidth(const HeatmapImage &heatmap, int barWidth, const QFontMetrics &metrics);
int drawColourLegend(QPainter &painter, const QRect &bar, const HeatmapImage &heatmap, const QPalette &palette);

} // namespace sparsity::ui
