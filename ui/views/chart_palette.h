#pragma once
// Charts coloured from their view's palette — background, title, axis lines, labels and grid —
// and coloured again on every palette change (a dark theme at start or switched while running),
// so no chart stays white in a dark window. ChartColours holds the series colours too, picked
// per palette so each series stands out from that palette's background.
#include <QColor>
#include <functional>

class QChartView;
class QPalette;

namespace sparsity::ui {

struct ChartColours {
    QColor background, text, grid, axisLine;
    QColor distribution, distributionOutline; // the histogram's body; also the schedule's curve
    QColor threshold;                         // the ±T lines, where pruning stops; the schedule's marker
    QColor selection, selectionOutline;       // the selected elements' distribution

    static ChartColours forPalette(const QPalette &palette);
};

// A palette whose views draw on a dark background.
bool isDarkPalette(const QPalette &palette);

// Colours `view`'s chart from its palette now and whenever the palette changes; then
// `recolourSeries` (optional) colours the view's own series. Installs an event filter owned
// by `view`; the chart may not be replaced afterwards.
void followPalette(QChartView *view, std::function<void(const ChartColours &)> recolourSeries = {});

} // namespace sparsity::ui
