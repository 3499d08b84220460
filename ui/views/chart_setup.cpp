#include "ui/views/chart_setup.h"

#include <QValueAxis>

namespace sparsity::ui {

std::pair<QValueAxis *, QValueAxis *> installChart(QChartView *view,
                                                   QChart *chart,
                                                   const QString &xTitle,
                                                   const QString &yTitle,
                                                   std::function<void(const ChartColours &)> recolourSeries,
                                                   QValueAxis *yAxis)
{
    chart->legend()->hide();
    auto *x = new QValueAxis(chart);
    x->setTitleText(xTitle);
    auto *y = yAxis ? yAxis : new QValueAxis(chart);
    y->setTitleText(yTitle);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries *series : chart->series()) {
        series->attachAxis(x);
        series->attachAxis(y);
    }
    // QChartView starts with a default chart, and setChart() releases the old one rather than
    // deleting it.
    QChart *defaultChart = view->chart();
    view->setChart(chart);
    delete defaultChart;
    view->setRenderHint(QPainter::Antialiasing);
    followPalette(view, std::move(recolourSeries));
    return {x, y};
}

} // namespace sparsity::ui
