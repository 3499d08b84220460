#pragma once
// The setup every chart view here shares: a chart without legend, the x axis at the bottom
// and y at the left with every series attached to both, installed as the view's chart.
#include <QChartView>

class QValueAxis;

namespace sparsity::ui {

// `chart` holds its series already; returns the (x, y) axes it creates, titled.
std::pair<QValueAxis *, QValueAxis *> installChart(QChartView *view, QChart *chart, const QString &xTitle, const QString &yTitle);

} // namespace sparsity::ui
