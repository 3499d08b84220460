#include "ui/views/chart_palette.h"

#include <QAbstractAxis>
#include <QChartView>
#include <QEvent>
#include <QLegend>
#include <QPalette>

namespace sparsity::ui {
namespace {

// `a` moved `t` of the way to `b`.
QColor mix(const QColor &a, const QColor &b, float t)
{
    return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * t, a.greenF() + (b.greenF() - a.greenF()) * t,
                            a.blueF() + (b.blueF() - a.blueF()) * t);
}

void colourChart(QChart *chart, const ChartColours &colours)
{
    chart->setBackgroundBrush(colours.background);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setBackgroundRoundness(0); // no light corners around a dark chart
    chart->setTitleBrush(colours.text);
    chart->legend()->setLabelColor(colours.text);
    for (auto *axis : chart->axes()) {
        axis->setLabelsColor(colours.text);
        axis->setTitleBrush(colours.text);
        axis->setGridLineColor(colours.grid);
        axis->setMinorGridLineColor(colours.grid);
        axis->setLinePenColor(colours.axisLine);
    }
}

// Sees the view's palette changes; owned by the view.
class PaletteFollower : public QObject {
public:
    PaletteFollower(QChartView *view, std::function<void(const ChartColours &)> recolourSeries)
        : QObject(view), m_view(view), m_recolourSeries(std::move(recolourSeries))
    {
        view->installEventFilter(this);
        apply();
    }

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == m_view && event->type() == QEvent::PaletteChange)
            apply();
        return false;
    }

private:
    void apply()
    {
        const auto colours = ChartColours::forPalette(m_view->palette());
        colourChart(m_view->chart(), colours);
        if (m_recolourSeries)
            m_recolourSeries(colours);
    }

    QChartView *m_view;
    std::function<void(const ChartColours &)> m_recolourSeries;
};

} // namespace

bool isDarkPalette(const QPalette &palette) { return palette.color(QPalette::Base).lightnessF() < 0.5f; }

ChartColours ChartColours::forPalette(const QPalette &palette)
{
    ChartColours c;
    c.background = palette.color(QPalette::Base);
    c.text = palette.color(QPalette::Text);
    c.grid = mix(c.background, c.text, 0.18f);
    c.axisLine = mix(c.background, c.text, 0.5f);
    // Each series keeps a contrast of at least 3:1 (WCAG's figure for graphics) with the
    // background: a darker shade on a light palette, a lighter one on a dark palette.
    const bool dark = isDarkPalette(palette);
    c.distribution = QColor(120, 144, 156);
    c.distributionOutline = dark ? QColor(176, 190, 197) : QColor(69, 90, 100);
    c.threshold = dark ? QColor(255, 183, 77) : QColor(230, 81, 0);
    c.selection = dark ? QColor(179, 157, 219, 200) : QColor(126, 87, 194, 200);
    c.selectionOutline = dark ? QColor(209, 196, 233) : QColor(81, 45, 168);
    return c;
}

void followPalette(QChartView *view, std::function<void(const ChartColours &)> recolourSeries)
{
    new PaletteFollower(view, std::move(recolourSeries));
}

} // namespace sparsity::ui
