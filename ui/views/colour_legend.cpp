#include "ui/views/colour_legend.h"

#include <QLinearGradient>
#include <QPainter>
#include <QPalette>
#include <tuple>

namespace sparsity::ui {

int drawColourLegend(QPainter &painter, const QRect &bar, const HeatmapImage &heatmap, const QPalette &palette)
{
    const ColourScale &scale = heatmap.scale;
    QLinearGradient gradient(bar.topLeft(), bar.bottomLeft());
    for (int i = 0; i <= 16; ++i)
        gradient.setColorAt(i / 16.0, mapColour(scale.map, 1.0 - i / 16.0));
    painter.fillRect(bar, gradient);
    painter.setPen(palette.color(QPalette::Mid));
    painter.drawRect(bar.adjusted(0, 0, -1, -1));
    painter.setPen(palette.color(QPalette::WindowText));
    const auto ascent = painter.fontMetrics().ascent();
    const auto label = [](double v) { return QString::number(v, 'g', 3); };
    painter.drawText(bar.right() + 4, bar.top() + ascent,
                     (scale.saturatesHigh() ? QStringLiteral("≥") : QString()) + label(scale.high));
    painter.drawText(bar.right() + 4, bar.center().y() + ascent / 2, label((scale.low + scale.high) / 2));
    painter.drawText(bar.right() + 4, bar.bottom(), (scale.saturatesLow() ? QStringLiteral("≤") : QString()) + label(scale.low));
    int y = bar.bottom() + 8;
    for (const auto &[present, colour, text] : {std::tuple{heatmap.hasNaN, kNaNColour, QStringLiteral("NaN")},
                                                std::tuple{heatmap.hasPosInf, kPosInfColour, QStringLiteral("+Inf")},
                                                std::tuple{heatmap.hasNegInf, kNegInfColour, QStringLiteral("−Inf")}}) {
        if (!present)
            continue;
        const QRect swatch(bar.left(), y, bar.width(), 14);
        painter.fillRect(swatch, QColor::fromRgb(colour));
        painter.drawText(swatch.right() + 4, swatch.bottom() - 1, text);
        y += 18;
    }
    return y;
}

} // namespace sparsity::ui
