#pragma once
// HistogramView: the value distribution of the document's tensor (specified elements, 64
// bins, counts on a log scale with ticks at whole decades) with the threshold preview as two draggable lines at ±T. Pressing and
// dragging sets the threshold to |value under the mouse| through the document (one undo step
// per drag); a double click clears it. The title shows the resulting sparsity live.
// Shift+drag selects a value range in the document; whatever is selected (here or in another
// view) is drawn as a second distribution in front of the first.
#include "core/tensor/histogram.h"

#include <QChartView>
#include <functional>
#include <optional>

class QAreaSeries;
class QLineSeries;
class QValueAxis;

namespace sparsity::ui {

class LogCountAxis;
class TensorDocument;

class HistogramView : public QChartView {
    Q_OBJECT

public:
    explicit HistogramView(TensorDocument *document, QWidget *parent = nullptr);

    // The chart value at a widget position (what a press there sets the threshold from).
    double valueAt(const QPoint &position) const;
    QString titleText() const;
    LogCountAxis *countAxis() const { return m_countAxis; }
    // The selected elements' bin heights (log10(count + 1)), for tests.
    QList<QPointF> selectedPoints() const;
    // The points of the -T and +T lines drawn (none without a threshold or a tensor), for tests.
    QList<QPointF> thresholdPoints() const;

protected:
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void rebuildHistogram();
    // Value ticks whose labels fit the width, each with the digits its step needs (seven
    // labels of "-0.0015" in a docked histogram were elided to "-0.0…").
    void fitValueTicks();
    // As many count labels as the plot's height holds, and the axis title shortened to fit it.
    void fitCountAxis();
    void updateThreshold();
    void updateSelection();
    void dragTo(const QPoint &position);
    // log10(count + 1) of `include`d specified finite values per bin, as a step outline.
    QList<QPointF> binPoints(const std::function<bool(std::size_t)> &include) const;

    TensorDocument *m_document;
    QLineSeries *m_counts = nullptr;
    QAreaSeries *m_area = nullptr;
    QLineSeries *m_selectedCounts = nullptr;
    QAreaSeries *m_selectedArea = nullptr;
    std::optional<core::HistogramBins> m_bins; // of the current histogram; none without values
    std::optional<double> m_rangeStart;        // value where a Shift+drag started
    QLineSeries *m_lower = nullptr;
    QLineSeries *m_upper = nullptr;
    QValueAxis *m_axisX = nullptr;
    LogCountAxis *m_countAxis = nullptr;
    int m_gesture = -1;
};

} // namespace sparsity::ui
