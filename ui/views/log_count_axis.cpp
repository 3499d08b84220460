#include "ui/views/log_count_axis.h"

#include <algorithm>
#include <cmath>

namespace sparsity::ui {

LogCountAxis::LogCountAxis(QObject *parent) : QCategoryAxis(parent)
{
    setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    setStartValue(0.0);
    setMaxCount(10);
}

double LogCountAxis::position(double count) { return std::log10(count + 1.0); }

QString LogCountAxis::countLabel(std::int64_t count)
{
    static const char *const suffixes[] = {"", "k", "M", "G", "T", "P", "E"};
    int thousands = 0;
    while (count >= 1000 && count % 1000 == 0 && thousands < 6) {
        count /= 1000;
        ++thousands;
    }
    return QString::number(count) + QLatin1String(suffixes[thousands]);
}

void LogCountAxis::setMaxCount(double maxCount)
{
    m_maxCount = maxCount;
    rebuild();
}

void LogCountAxis::setLabelRoom(int labels)
{
    if (std::max(3, labels) == m_labelRoom)
        return;
    m_labelRoom = std::max(3, labels);
    rebuild();
}

void LogCountAxis::rebuild()
{
    for (const auto &label : categoriesLabels())
        remove(label);
    // The first decade at or above the largest count; 10 at least. 10^18 is the last that fits.
    int decades = 1;
    std::int64_t top = 10;
    while (static_cast<double>(top) < m_maxCount && top <= std::int64_t{100'000'000'000'000'000}) {
        top *= 10;
        ++decades;
    }
    // 0, then the decades d in 0..decades with (decades - d) a multiple of the step (always the
    // top one, where the range ends).
    int step = 1;
    while (1 + decades / step + 1 > m_labelRoom && step < decades)
        ++step;
    append(countLabel(0), position(0));
    std::int64_t decade = 1;
    for (int d = 0; d <= decades; ++d, decade *= 10)
        if ((decades - d) % step == 0)
            append(countLabel(decade), position(static_cast<double>(decade)));
    setRange(0.0, position(static_cast<double>(top)));
}

} // namespace sparsity::ui
