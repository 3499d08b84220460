#include "ui/views/histogram_view.h"

#include "ui/document/tensor_document.h"

#include <QAreaSeries>
#include <QLineSeries>
#include <QMouseEvent>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace sparsity::ui {
namespace {

constexpr int kBins = 64;

} // namespace

HistogramView::HistogramView(TensorDocument *document, QWidget *parent) : QChartView(parent), m_document(document)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(240, 160);
    auto *chart = new QChart;
    chart->legend()->hide();
    chart->setMargins(QMargins(4, 4, 4, 4));
    m_counts = new QLineSeries(chart);
    m_area = new QAreaSeries(m_counts);
    m_area->setColor(QColor(120, 144, 156));
    m_area->setBorderColor(QColor(69, 90, 100));
    m_lower = new QLineSeries(chart);
    m_upper = new QLineSeries(chart);
    for (auto *line : {m_lower, m_upper})
        line->setPen(QPen(QColor(245, 166, 35), 2));
    chart->addSeries(m_area);
    chart->addSeries(m_lower);
    chart->addSeries(m_upper);
    m_axisX = new QValueAxis(chart);
    m_axisX->setTitleText(tr("value"));
    m_axisY = new QValueAxis(chart);
    m_axisY->setTitleText(tr("log₁₀(count + 1)"));
    chart->addAxis(m_axisX, Qt::AlignBottom);
    chart->addAxis(m_axisY, Qt::AlignLeft);
    for (QAbstractSeries *series : chart->series()) {
        series->attachAxis(m_axisX);
        series->attachAxis(m_axisY);
    }
    // QChartView starts with a default chart and setChart() releases, not deletes, the old one.
    QChart *defaultChart = this->chart();
    setChart(chart);
    delete defaultChart;
    connect(document, &TensorDocument::tensorChanged, this, &HistogramView::rebuildHistogram);
    connect(document, &TensorDocument::sparsifierChanged, this, &HistogramView::updateThreshold);
    rebuildHistogram();
}

void HistogramView::rebuildHistogram()
{
    const auto &values = m_document->values().values;
    const auto *specified = m_document->specified();
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::size_t i = 0; i < values.size(); ++i)
        if ((!specified || (*specified)[i]) && std::isfinite(values[i])) {
            lo = std::min(lo, values[i]);
            hi = std::max(hi, values[i]);
        }
    QList<QPointF> points;
    m_maxHeight = 1.0;
    if (lo <= hi) {
        if (lo == hi) {
            lo -= 0.5;
            hi += 0.5;
        }
        std::vector<std::int64_t> counts(kBins, 0);
        const double width = (hi - lo) / kBins;
        for (std::size_t i = 0; i < values.size(); ++i)
            if ((!specified || (*specified)[i]) && std::isfinite(values[i]))
                ++counts[static_cast<std::size_t>(std::clamp(static_cast<int>((values[i] - lo) / width), 0, kBins - 1))];
        for (int b = 0; b < kBins; ++b) {
            const double height = std::log10(1.0 + static_cast<double>(counts[static_cast<std::size_t>(b)]));
            points << QPointF(lo + b * width, height) << QPointF(lo + (b + 1) * width, height);
            m_maxHeight = std::max(m_maxHeight, height);
        }
        m_axisX->setRange(lo, hi);
        m_axisX->applyNiceNumbers();
    } else {
        m_axisX->setRange(-1.0, 1.0);
    }
    m_counts->replace(points);
    m_axisY->setRange(0.0, std::ceil(m_maxHeight));
    updateThreshold();
}

void HistogramView::updateThreshold()
{
    const auto threshold = m_document->threshold();
    m_lower->clear();
    m_upper->clear();
    if (threshold) {
        const double top = std::ceil(m_maxHeight);
        m_lower->append({QPointF(-*threshold, 0.0), QPointF(-*threshold, top)});
        m_upper->append({QPointF(*threshold, 0.0), QPointF(*threshold, top)});
    }
    chart()->setTitle(titleText());
}

QString HistogramView::titleText() const
{
    if (!m_document->hasTensor())
        return tr("No tensor");
    const auto &sparsifier = m_document->sparsifier();
    if (!sparsifier)
        return tr("Press and drag to preview a threshold");
    if (!m_document->hasPreview())
        return tr("%1 does not fit this tensor").arg(describeSparsifier(*sparsifier));
    // Plain text only: the chart title is rich text, where '<' would open a tag.
    return tr("%1: %2% pruned").arg(describeSparsifier(*sparsifier)).arg(100.0 * m_document->prunedFraction(), 0, 'f', 1);
}

double HistogramView::valueAt(const QPoint &position) const
{
    return chart()->mapToValue(chart()->mapFromScene(mapToScene(position))).x();
}

void HistogramView::dragTo(const QPoint &position)
{
    m_document->changeThreshold(std::abs(valueAt(position)), m_gesture);
}

void HistogramView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_document->hasTensor())
        return QChartView::mousePressEvent(event);
    m_gesture = m_document->newGesture();
    dragTo(event->position().toPoint());
    event->accept();
}

void HistogramView::mouseMoveEvent(QMouseEvent *event)
{
    if (m_gesture < 0 || !(event->buttons() & Qt::LeftButton))
        return QChartView::mouseMoveEvent(event);
    dragTo(event->position().toPoint());
    event->accept();
}

void HistogramView::mouseReleaseEvent(QMouseEvent *event)
{
    m_gesture = -1;
    QChartView::mouseReleaseEvent(event);
}

void HistogramView::mouseDoubleClickEvent(QMouseEvent *event)
{
    m_document->changeThreshold(std::nullopt);
    event->accept();
}

} // namespace sparsity::ui
