#pragma once
// ScheduleChart: a sparsity schedule (core::parseSchedule's text form) drawn as level over
// steps, with the step whose level the sparsifier uses marked.
#include <QChartView>

class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace sparsity::ui {

class ScheduleChart : public QChartView {
    Q_OBJECT

public:
    explicit ScheduleChart(QWidget *parent = nullptr);

    // Draws steps 0..lastStep; returns the level at `atStep`. Throws core::InputError for a
    // schedule that does not parse (the chart is then left empty).
    double setSchedule(const QString &spec, int lastStep, int atStep);

private:
    QLineSeries *m_curve;
    QScatterSeries *m_marker;
    QValueAxis *m_axisX, *m_axisY;
};

} // namespace sparsity::ui
