#include "ui/views/colour_legend.h"

#include <QLinearGradient>
#include <QPainter>
#include <QPalette>

namespace sparsity::ui {

void drawColourLegend(QPainter &painter, const QRect &bar, const HeatmapImage &heatmap, const QPalette &palette)
{
    QLinearGradient gradient(bar.topLeft(), bar.bottomLeft());
    gradient.setColorAt(0.0, divergingColour(1.0, 1.0));
    gradient.setColorAt(0.5, divergingColour(0.0, 1.0));
    gradient.setColorAt(1.0, divergingColour(-1.0, 1.0));
    painter.fillRect(bar, gradient);
    painter.setPen(palette.color(QPalette::Mid));
    painter.drawRect(bar.adjusted(0, 0, -1, -1));
    painter.setPen(palette.color(QPalette::WindowText));
    const auto ascent = painter.fontMetrics().ascent();
    const auto label = [](double v) { return QString::number(v, 'g', 3); };
    const bool saturated = heatmap.trueMaxAbs > heatmap.maxAbs;
    painter.drawText(bar.right() + 4, bar.top() + ascent, (saturated ? QStringLiteral("≥") : QString()) + label(heatmap.maxAbs));
    painter.drawText(bar.right() + 4, bar.center().y() + ascent / 2, QStringLiteral("0"));
    painter.drawText(bar.right() + 4, bar.bottom(), (saturated ? QStringLiteral("≤") : QString()) + label(-heatmap.maxAbs));
}

} // namespace sparsity::ui
