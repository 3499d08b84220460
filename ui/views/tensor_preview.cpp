#include "ui/views/tensor_preview.h"

#include "ui/document/tensor_document.h"
#include "ui/views/colour_legend.h"

#include <QMouseEvent>
#include <QPainter>

namespace sparsity::ui {

TensorPreview::TensorPreview(TensorDocument *document, QWidget *parent) : QWidget(parent), m_document(document)
{
    setMinimumSize(320, 240);
    setAutoFillBackground(true);
    connect(document, &TensorDocument::tensorChanged, this, &TensorPreview::render);
    connect(document, &TensorDocument::sparsifierChanged, this, &TensorPreview::render);
    connect(document, &TensorDocument::selectionChanged, this, &TensorPreview::renderSelection);
    setMouseTracking(true);
    showMessage(tr("Select a tensor in the Files panel to preview it."));
}

void TensorPreview::render()
{
    if (!m_document->hasTensor())
        return;
    const auto &values = m_document->values();
    m_heatmap = renderHeatmap(values, m_document->specified(), m_document->hasPreview() ? &m_document->pruned() : nullptr);
    m_title = m_document->title();
    if (!values.shape.empty() && m_document->totalRows() > values.shape[0])
        m_title += tr("  (first %1 of %2 rows)").arg(values.shape[0]).arg(m_document->totalRows());
    m_message.clear();
    renderSelection();
}

void TensorPreview::renderSelection()
{
    m_selectionWash = {};
    const auto &selected = m_document->selected();
    if (!selected.empty() && !m_heatmap.image.isNull()) {
        // Unselected elements are washed towards white so the selection stands out in colour.
        m_selectionWash = QImage(m_heatmap.image.size(), QImage::Format_ARGB32);
        const int cols = m_heatmap.image.width();
        for (int r = 0; r < m_selectionWash.height(); ++r) {
            auto *line = reinterpret_cast<QRgb *>(m_selectionWash.scanLine(r));
            for (int c = 0; c < cols; ++c)
                line[c] = selected[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)]
                              ? qRgba(0, 0, 0, 0)
                              : qRgba(255, 255, 255, 170);
        }
    }
    update();
}

QRect TensorPreview::imageArea() const
{
    const int margin = 8;
    const int titleHeight = fontMetrics().height() + margin;
    const int legendWidth = 70;
    return QRect(margin, titleHeight + margin, width() - legendWidth - 3 * margin, height() - titleHeight - 2 * margin);
}

std::optional<QPoint> TensorPreview::elementAt(const QPoint &position) const
{
    const QRect area = imageArea();
    if (m_heatmap.image.isNull() || !area.contains(position))
        return std::nullopt;
    const int col = (position.x() - area.left()) * m_heatmap.image.width() / std::max(area.width(), 1);
    const int row = (position.y() - area.top()) * m_heatmap.image.height() / std::max(area.height(), 1);
    return QPoint(std::min(col, m_heatmap.image.width() - 1), std::min(row, m_heatmap.image.height() - 1));
}

QPoint TensorPreview::positionOf(std::int64_t row, std::int64_t col) const
{
    const QRect area = imageArea();
    const double w = static_cast<double>(area.width()) / std::max(m_heatmap.image.width(), 1);
    const double h = static_cast<double>(area.height()) / std::max(m_heatmap.image.height(), 1);
    return QPoint(area.left() + static_cast<int>((static_cast<double>(col) + 0.5) * w),
                  area.top() + static_cast<int>((static_cast<double>(row) + 0.5) * h));
}

void TensorPreview::selectTo(const QPoint &element, bool wholeRows)
{
    const std::int64_t lastCol = wholeRows ? m_heatmap.image.width() - 1 : element.x();
    const std::int64_t firstCol = wholeRows ? 0 : m_anchor->x();
    m_document->setSelection(ElementSelection::rectangle(m_anchor->y(), element.y(), firstCol, lastCol));
}

void TensorPreview::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    const auto element = elementAt(event->position().toPoint());
    if (!element) {
        m_document->setSelection({});
        return;
    }
    m_anchor = element;
    selectTo(*element, event->modifiers() & Qt::ShiftModifier);
}

void TensorPreview::mouseMoveEvent(QMouseEvent *event)
{
    const auto element = elementAt(event->position().toPoint());
    m_document->setHover(element ? std::optional<std::int64_t>(static_cast<std::int64_t>(element->y()) * m_heatmap.image.width() + element->x())
                                 : std::nullopt);
    if (m_anchor && element && (event->buttons() & Qt::LeftButton))
        selectTo(*element, event->modifiers() & Qt::ShiftModifier);
}

void TensorPreview::mouseReleaseEvent(QMouseEvent *event)
{
    m_anchor.reset();
    QWidget::mouseReleaseEvent(event);
}

void TensorPreview::leaveEvent(QEvent *event)
{
    m_document->setHover(std::nullopt);
    QWidget::leaveEvent(event);
}

void TensorPreview::showMessage(const QString &message)
{
    m_heatmap = {};
    m_selectionWash = {};
    m_title.clear();
    m_message = message;
    update();
}

void TensorPreview::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    if (m_heatmap.image.isNull()) {
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    const int margin = 8;
    const int titleHeight = fontMetrics().height() + margin;
    painter.drawText(QRect(margin, margin / 2, width() - 2 * margin, titleHeight), Qt::AlignLeft | Qt::AlignVCenter, m_title);
    const QRect area = imageArea();
    // Tables are drawn filling the area (matplotlib's aspect="auto"); nearest-neighbour
    // scaling keeps single elements crisp.
    const QRect target = area;
    painter.drawImage(target, m_heatmap.image);
    if (!m_selectionWash.isNull())
        painter.drawImage(target, m_selectionWash);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(target.adjusted(0, 0, -1, -1));

    const QRect bar(area.right() + margin, area.top(), 16, std::min(area.height(), 200));
    drawColourLegend(painter, bar, m_heatmap, palette());
    if (m_document->hasPreview()) {
        const QRect swatch(bar.left(), bar.bottom() + 2 * margin, 16, 16);
        painter.fillRect(swatch, QColor::fromRgb(kPrunedColour));
        painter.drawText(swatch.right() + 4, swatch.bottom() - 2, tr("pruned"));
    }
}

} // namespace sparsity::ui
