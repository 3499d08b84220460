#include "ui/views/histogram_view.h"

#include "ui/document/tensor_document.h"
#include "ui/views/chart_setup.h"
#include "ui/views/log_count_axis.h"

#include <QAreaSeries>
#include <QFontMetrics>
#include <QLineSeries>
#include <QMouseEvent>
#include <QResizeEvent>
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
    setMinimumSize(200, 120);
    auto *chart = new QChart;
    chart->setMargins(QMargins(4, 4, 4, 4));
    m_counts = new QLineSeries(chart);
    m_area = new QAreaSeries(m_counts);
    m_selectedCounts = new QLineSeries(chart);
    m_selectedArea = new QAreaSeries(m_selectedCounts);
    m_lower = new QLineSeries(chart);
    m_upper = new QLineSeries(chart);
    chart->addSeries(m_area);
    chart->addSeries(m_selectedArea);
    chart->addSeries(m_lower);
    chart->addSeries(m_upper);
    m_countAxis = new LogCountAxis(chart);
    const auto colourSeries = [this](const ChartColours &colours) {
        m_area->setColor(colours.distribution);
        m_area->setBorderColor(colours.distributionOutline);
        m_selectedArea->setColor(colours.selection);
        m_selectedArea->setBorderColor(colours.selectionOutline);
        for (auto *line : {m_lower, m_upper})
            line->setPen(QPen(colours.threshold, 2));
    };
    std::tie(m_axisX, std::ignore) = installChart(this, chart, tr("value"), tr("count (log scale)"), colourSeries, m_countAxis);
    connect(document, &TensorDocument::tensorChanged, this, &HistogramView::rebuildHistogram);
    connect(document, &TensorDocument::sparsifierChanged, this, &HistogramView::updateThreshold);
    connect(document, &TensorDocument::selectionChanged, this, &HistogramView::updateSelection);
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
    double maxCount = 0.0;
    m_bins.reset();
    QList<QPointF> points;
    if (lo <= hi) {
        if (lo == hi) { // a bin around the value; past 2^53, one ulp either side of it
            lo = std::min(lo - 0.5, std::nextafter(lo, -std::numeric_limits<double>::infinity()));
            hi = std::max(hi + 0.5, std::nextafter(hi, std::numeric_limits<double>::infinity()));
        }
        m_bins.emplace(lo, hi, kBins); // the report's bins (at a scale where hi - lo overflows)
        points = binPoints([](std::size_t) { return true; });
        for (const auto &point : points) // heights are LogCountAxis::position(count)
            maxCount = std::max(maxCount, std::round(std::pow(10.0, point.y()) - 1.0));
        fitValueTicks();
    } else {
        m_axisX->setLabelFormat(QStringLiteral("%.2f"));
        m_axisX->setTickCount(5);
        m_axisX->setRange(-1.0, 1.0);
    }
    m_counts->replace(points);
    m_countAxis->setMaxCount(maxCount);
    updateThreshold();
    updateSelection();
}

void HistogramView::fitValueTicks()
{
    if (!m_bins)
        return;
    const double lo = m_bins->edge(0), hi = m_bins->edge(kBins);
    // The plot area is known once the chart is laid out; before, the view less its y axis.
    const QRectF plot = chart()->plotArea();
    const double available = plot.width() > 1.0 ? plot.width() : std::max(width() - 80, 40);
    const QFontMetrics metrics(m_axisX->labelsFont());
    // A range wider than the largest double (hi - lo overflows) keeps its ends: nice numbers
    // round them outwards, past the largest double.
    const bool wide = !std::isfinite(hi - lo);
    for (int ticks = 7;; --ticks) {
        m_axisX->setTickCount(ticks);
        m_axisX->setRange(lo, hi);
        if (!wide)
            m_axisX->applyNiceNumbers();
        const int count = m_axisX->tickCount();
        const double step = m_axisX->max() / std::max(count - 1, 1) - m_axisX->min() / std::max(count - 1, 1);
        const double largest = std::max(std::abs(m_axisX->min()), std::abs(m_axisX->max()));
        // Enough significant digits to tell the ticks apart, and to write the largest without
        // an exponent ("%.2g" wrote 100 as 1e+02).
        const int magnitude = static_cast<int>(std::floor(std::log10(largest)));
        const int digits = std::clamp(std::max(magnitude - static_cast<int>(std::floor(std::log10(step))), magnitude) + 1, 1, 12);
        const QString format = QStringLiteral("%.") + QString::number(digits) + QLatin1Char('g');
        m_axisX->setLabelFormat(format);
        int widest = 0;
        for (int k = 0; k < count; ++k)
            widest =
                std::max(widest, metrics.horizontalAdvance(QString::asprintf(
                                     "%.*g", digits, std::lerp(m_axisX->min(), m_axisX->max(), k / std::max(count - 1.0, 1.0)))));
        if (ticks <= 3 || (widest + metrics.averageCharWidth()) * (count - 1) <= available)
            return;
    }
}

void HistogramView::resizeEvent(QResizeEvent *event)
{
    QChartView::resizeEvent(event);
    fitValueTicks();
    fitCountAxis();
}

void HistogramView::fitCountAxis()
{
    // A short dock (its splitter dragged up) drew every count label and the axis title as "…".
    const QRectF plot = chart()->plotArea();
    const double tall = plot.height() > 1.0 ? plot.height() : std::max(height() - 60, 40);
    const QFontMetrics labels(m_countAxis->labelsFont());
    m_countAxis->setLabelRoom(static_cast<int>(tall / (1.5 * labels.height())));
    const QFontMetrics title(m_countAxis->titleFont());
    const QString full = tr("count (log scale)");
    m_countAxis->setTitleText(title.horizontalAdvance(full) <= tall ? full : tr("count"));
    // Near the view's least height the value title goes, so its tick labels keep their room.
    m_axisX->setTitleVisible(height() >= 150);
}

QList<QPointF> HistogramView::binPoints(const std::function<bool(std::size_t)> &include) const
{
    const auto &values = m_document->values().values;
    const auto *specified = m_document->specified();
    std::vector<std::int64_t> counts(kBins, 0);
    for (std::size_t i = 0; i < values.size(); ++i)
        if ((!specified || (*specified)[i]) && std::isfinite(values[i]) && include(i))
            ++counts[static_cast<std::size_t>(m_bins->binOf(values[i]))]; // within [lo, hi]
    QList<QPointF> points;
    for (int b = 0; b < kBins; ++b) {
        const double height = LogCountAxis::position(static_cast<double>(counts[static_cast<std::size_t>(b)]));
        points << QPointF(m_bins->edge(b), height) << QPointF(m_bins->edge(b + 1), height);
    }
    return points;
}

void HistogramView::updateSelection()
{
    const auto &selected = m_document->selected();
    // Hidden without a selection: an area series whose points were cleared still draws its
    // outline up the chart's left edge.
    m_selectedArea->setVisible(!selected.empty() && m_bins);
    if (!m_selectedArea->isVisible()) {
        m_selectedCounts->clear();
        return;
    }
    m_selectedCounts->replace(binPoints([&selected](std::size_t i) { return selected[i] != 0; }));
}

QList<QPointF> HistogramView::selectedPoints() const { return m_selectedCounts->points(); }

QList<QPointF> HistogramView::thresholdPoints() const { return m_lower->points() + m_upper->points(); }

void HistogramView::updateThreshold()
{
    const auto threshold = m_document->threshold();
    m_lower->clear();
    m_upper->clear();
    if (threshold && m_document->hasTensor()) { // no tensor, no values to cut
        const double top = m_countAxis->max();
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
    // Plain text only: the chart title is rich text, where '<' would open a tag. A table
    // loaded a window at a time says which rows the percentage covers.
    const QString rows = m_document->coverage();
    return tr("%1: %2% pruned%3")
        .arg(describeSparsifier(*sparsifier))
        .arg(100.0 * m_document->prunedFraction(), 0, 'f', 1)
        .arg(rows.isEmpty() ? QString() : tr(" (%1)").arg(rows));
}

double HistogramView::valueAt(const QPoint &position) const
{
    return chart()->mapToValue(chart()->mapFromScene(mapToScene(position))).x();
}

void HistogramView::dragTo(const QPoint &position) { m_document->changeThreshold(std::abs(valueAt(position)), m_gesture); }

void HistogramView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_document->hasTensor())
        return QChartView::mousePressEvent(event);
    if (event->modifiers() & Qt::ShiftModifier) {
        m_rangeStart = valueAt(event->position().toPoint());
        m_document->setSelection(ElementSelection::valueRange(*m_rangeStart, *m_rangeStart));
        event->accept();
        return;
    }
    m_gesture = m_document->newGesture();
    dragTo(event->position().toPoint());
    event->accept();
}

void HistogramView::mouseMoveEvent(QMouseEvent *event)
{
    if (m_rangeStart && (event->buttons() & Qt::LeftButton)) {
        m_document->setSelection(ElementSelection::valueRange(*m_rangeStart, valueAt(event->position().toPoint())));
        event->accept();
        return;
    }
    if (m_gesture < 0 || !(event->buttons() & Qt::LeftButton))
        return QChartView::mouseMoveEvent(event);
    dragTo(event->position().toPoint());
    event->accept();
}

void HistogramView::mouseReleaseEvent(QMouseEvent *event)
{
    m_gesture = -1;
    m_rangeStart.reset();
    QChartView::mouseReleaseEvent(event);
}

void HistogramView::mouseDoubleClickEvent(QMouseEvent *event)
{
    m_document->changeThreshold(std::nullopt);
    event->accept();
}

} // namespace sparsity::ui
