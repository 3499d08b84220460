#include "ui/views/schedule_chart.h"

#include "core/sparsify/scheduler.h"
#include "ui/views/chart_setup.h"

#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

namespace sparsity::ui {

ScheduleChart::ScheduleChart(QWidget *parent) : QChartView(parent)
{
    setMinimumHeight(140);
    auto *chart = new QChart;
    chart->setMargins(QMargins(2, 2, 2, 2));
    m_curve = new QLineSeries(chart);
    m_marker = new QScatterSeries(chart);
    m_marker->setMarkerSize(9);
    chart->addSeries(m_curve);
    chart->addSeries(m_marker);
    std::tie(m_axisX, m_axisY) = installChart(this, chart, tr("step"), tr("level"), [this](const ChartColours &colours) {
        m_curve->setPen(QPen(colours.distributionOutline, 2));
        m_marker->setColor(colours.threshold);
        m_marker->setBorderColor(colours.threshold);
    });
    m_axisX->setLabelFormat(QStringLiteral("%d"));
    m_axisY->setRange(0.0, 1.0);
}

double ScheduleChart::setSchedule(const QString &spec, int lastStep, int atStep)
{
    m_curve->clear();
    m_marker->clear();
    const auto schedule = core::parseSchedule(spec.toStdString());
    QList<QPointF> points;
    const auto levels = schedule->curve(0, lastStep);
    for (std::size_t i = 0; i < levels.size(); ++i)
        points << QPointF(static_cast<double>(i), levels[i]);
    m_curve->replace(points);
    const double level = schedule->level(atStep);
    m_marker->append(atStep, level);
    m_axisX->setRange(0, std::max(lastStep, 1));
    return level;
}

} // namespace sparsity::ui
