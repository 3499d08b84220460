#include "ui/views/log_count_axis.h"

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
    for (const auto &label : categoriesLabels())
        remove(label);
    append(countLabel(0), position(0));
    std::int64_t decade = 1;
    append(countLabel(decade), position(1));
    // Up to the first decade at or above maxCount; 10 at least. 10^18 is the last that fits.
    while (decade < 10 || (static_cast<double>(decade) < maxCount && decade <= std::int64_t{100'000'000'000'000'000})) {
        decade *= 10;
        append(countLabel(decade), position(static_cast<double>(decade)));
    }
    setRange(0.0, position(static_cast<double>(decade)));
}

} // namespace sparsity::ui
