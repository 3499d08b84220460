#include "ui/views/heatmap_axes.h"

#include <QPainter>
#include <QPalette>
#include <algorithm>
#include <cmath>

namespace sparsity::ui {

std::vector<std::int64_t> tickIndices(double viewStart, double viewLength, int pixels, int minSpacing)
{
    std::vector<std::int64_t> ticks;
    if (viewLength <= 0 || pixels <= 0)
        return ticks;
    const double perPixel = viewLength / pixels;
    const double least = std::max(1.0, perPixel * std::max(minSpacing, 1));
    static constexpr std::int64_t kNice[] = {1, 2, 5};
    std::int64_t step = 0;
    for (std::int64_t decade = 1; step == 0; decade *= 10)
        for (const auto m : kNice)
            if (step == 0 && static_cast<double>(m * decade) >= least)
                step = m * decade;
    const auto first = static_cast<std::int64_t>(std::ceil((viewStart - 0.5) / static_cast<double>(step))) * step;
    for (std::int64_t i = std::max<std::int64_t>(first, 0); static_cast<double>(i) + 0.5 < viewStart + viewLength; i += step)
        ticks.push_back(i);
    return ticks;
}

QList<AxisTick> axisTicks(double viewStart, double viewLength, int origin, int pixels, int minSpacing, std::int64_t base)
{
    QList<AxisTick> ticks;
    const double perElement = viewLength > 0 ? pixels / viewLength : 0.0;
    // Multiples of the step in the tensor's numbering, not the window's: rows 86,593.. of a
    // table are labelled 90000, 95000 …, not 86593, 91593 ….
    for (const auto i : tickIndices(static_cast<double>(base) + viewStart, viewLength, pixels, minSpacing))
        ticks.append({i, origin + static_cast<int>((static_cast<double>(i - base) + 0.5 - viewStart) * perElement)});
    return ticks;
}

void drawAxes(
    QPainter &painter, const QRect &image, const QList<AxisTick> &rows, const QList<AxisTick> &columns, const QPalette &palette)
{
    painter.save();
    painter.setPen(palette.color(QPalette::WindowText));
    const int textHeight = painter.fontMetrics().height();
    for (const auto &tick : rows) {
        painter.drawLine(image.left() - 3, tick.position, image.left() - 1, tick.position);
        painter.drawText(QRect(0, tick.position - textHeight / 2, image.left() - 4, textHeight),
                         Qt::AlignRight | Qt::AlignVCenter, QString::number(tick.index));
    }
    for (const auto &tick : columns) {
        painter.drawLine(tick.position, image.bottom() + 1, tick.position, image.bottom() + 3);
        painter.drawText(QRect(tick.position - 40, image.bottom() + 3, 80, textHeight), Qt::AlignHCenter | Qt::AlignTop,
                         QString::number(tick.index));
    }
    painter.restore();
}

} // namespace sparsity::ui
