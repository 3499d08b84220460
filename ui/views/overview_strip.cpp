#include "ui/views/overview_strip.h"

#include "ui/views/heatmap_image.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace sparsity::ui {
namespace {

// The strip's colour scale: the heatmap's rule over the blocks read so far — of their
// strongest values, so it reads hotter than any one window.
ColourScale scaleOf(const RowOverview &overview, ColourMap map)
{
    const auto binsRead = std::min(overview.bins(), (overview.rowsAdded() + overview.rowsPerBin() - 1) / overview.rowsPerBin());
    const auto &v = overview.values();
    return colourScaleOf(v.values.data(), static_cast<std::size_t>(binsRead * v.shape.at(1)), nullptr, ColourSettings{map});
}

} // namespace

OverviewStrip::OverviewStrip(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("heatmap.overview"));
    setMinimumWidth(48);
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Expanding);
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("The whole table: click or drag to choose the rows shown"));
    m_renderSoon.setSingleShot(true);
    m_renderSoon.setInterval(150); // a growing overview is redrawn a few times a second, not per chunk
    connect(&m_renderSoon, &QTimer::timeout, this, &OverviewStrip::render);
}

void OverviewStrip::setOverview(const RowOverview *overview)
{
    m_overview = overview;
    render();
}

void OverviewStrip::overviewChanged(bool immediately)
{
    if (immediately)
        render();
    else if (!m_renderSoon.isActive())
        m_renderSoon.start();
}

void OverviewStrip::setColourMap(ColourMap map)
{
    if (map == m_map)
        return;
    m_map = map;
    render();
}

void OverviewStrip::setWindow(std::int64_t firstRow, std::int64_t rows)
{
    m_firstRow = firstRow;
    m_rows = rows;
    update();
}

QRect OverviewStrip::imageArea() const { return rect().adjusted(2, 2, -2, -2); }

void OverviewStrip::render()
{
    m_renderSoon.stop();
    m_image = {};
    m_imageRows = m_overview ? m_overview->rowsAdded() : 0;
    if (m_overview && m_overview->bins() > 0 && !imageArea().isEmpty())
        m_image = renderPooled(m_overview->values(), scaleOf(*m_overview, m_map), imageArea().size());
    update();
}

void OverviewStrip::resizeEvent(QResizeEvent *event)
{
    render();
    QWidget::resizeEvent(event);
}

int OverviewStrip::yOf(std::int64_t row) const
{
    const QRect area = imageArea();
    const auto total = std::max<std::int64_t>(m_overview ? m_overview->totalRows() : 1, 1);
    return area.top() + static_cast<int>(row * area.height() / total);
}

std::int64_t OverviewStrip::windowAt(int y) const
{
    if (!m_overview)
        return 0;
    const QRect area = imageArea();
    const auto total = m_overview->totalRows();
    const auto row = static_cast<std::int64_t>(y - area.top()) * total / std::max(area.height(), 1);
    return std::clamp<std::int64_t>(row - m_rows / 2, 0, std::max<std::int64_t>(total - m_rows, 0));
}

void OverviewStrip::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_overview)
        return QWidget::mousePressEvent(event);
    m_dragFirst = windowAt(event->position().toPoint().y());
    update();
}

void OverviewStrip::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_dragFirst || !(event->buttons() & Qt::LeftButton))
        return QWidget::mouseMoveEvent(event);
    m_dragFirst = windowAt(event->position().toPoint().y());
    update();
}

void OverviewStrip::mouseReleaseEvent(QMouseEvent *event)
{
    if (!m_dragFirst)
        return QWidget::mouseReleaseEvent(event);
    const auto first = *m_dragFirst;
    m_dragFirst.reset();
    update();
    emit windowRequested(first);
}

void OverviewStrip::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    const QRect area = imageArea();
    if (m_image.isNull() || !m_overview)
        return;
    painter.drawImage(area, m_image);
    // Rows not read yet when the image was made (the overview is built top to bottom).
    if (m_imageRows < m_overview->totalRows()) {
        const int read = yOf(m_imageRows);
        painter.fillRect(QRect(area.left(), read, area.width(), area.bottom() - read + 1), QColor(200, 200, 200, 220));
    }
    // The loaded window (and where a drag would move it): a line of `colour` on a white one
    // twice as wide, so it shows on any colour of the map (the highlight alone was lost on
    // blue and red data).
    const auto outline = [&](std::int64_t first, const QColor &colour) {
        const int top = yOf(first), bottom = std::max(yOf(first + m_rows), top + 3);
        const QRect window(area.left() + 2, top, area.width() - 4, bottom - top);
        painter.setBrush(Qt::NoBrush);
        painter.setPen(QPen(Qt::white, 4));
        painter.drawRect(window);
        painter.setPen(QPen(colour, 2));
        painter.drawRect(window);
    };
    outline(m_firstRow, palette().color(QPalette::Highlight));
    if (m_dragFirst)
        outline(*m_dragFirst, palette().color(QPalette::Text));
    painter.setPen(palette().color(QPalette::Mid));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(area.adjusted(0, 0, -1, -1));
}

} // namespace sparsity::ui
