#include "ui/views/colour_legend.h"

#include <QFontMetrics>
#include <QLinearGradient>
#include <QPainter>
#include <QPalette>
#include <algorithm>
#include <array>
#include <tuple>

namespace sparsity::ui {
namespace {

// The bar's three labels, top to bottom.
std::array<QString, 3> labelsOf(const ColourScale &scale)
{
    const auto label = [](double v) { return QString::number(v, 'g', 3); };
    return {(scale.saturatesHigh() ? QStringLiteral("≥") : QString()) + label(scale.high), label((scale.low + scale.high) / 2),
            (scale.saturatesLow() ? QStringLiteral("≤") : QString()) + label(scale.low)};
}

} // namespace

int colourLegendWidth(const HeatmapImage &heatmap, int barWidth, const QFontMetrics &metrics)
{
    int widest = metrics.horizontalAdvance(QStringLiteral("+Inf")); // the swatches' labels
    for (const auto &text : labelsOf(heatmap.scale))
        widest = std::max(widest, metrics.horizontalAdvance(text));
    return barWidth + 4 + widest + 2;
}

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
    const auto labels = labelsOf(scale);
    painter.drawText(bar.right() + 4, bar.top() + ascent, labels[0]);
    painter.drawText(bar.right() + 4, bar.center().y() + ascent / 2, labels[1]);
    painter.drawText(bar.right() + 4, bar.bottom(), labels[2]);
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
