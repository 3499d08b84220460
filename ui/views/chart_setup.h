#pragma once
// The setup every chart view here shares: a chart without legend, the x axis at the bottom
// and y at the left with every series attached to both, installed as the view's chart and
// coloured from the view's palette (followPalette: again on every palette change).
#include "ui/views/chart_palette.h"

#include <QChartView>
#include <functional>

class QValueAxis;

namespace sparsity::ui {

// `chart` holds its series already; returns the (x, y) axes, titled. `yAxis`, when given, is
// the y axis instead of a plain QValueAxis (the chart takes it). `recolourSeries` colours the
// view's series for the palette, now and on every palette change.
std::pair<QValueAxis *, QValueAxis *> installChart(QChartView *view,
                                                   QChart *chart,
                                                   const QString &xTitle,
                                                   const QString &yTitle,
                                                   std::function<void(const ChartColours &)> recolourSeries = {},
                                                   QValueAxis *yAxis = nullptr);

} // namespace sparsity::ui
