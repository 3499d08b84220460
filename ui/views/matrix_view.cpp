#include "ui/views/matrix_view.h"

#include "ui/views/colour_legend.h"

#include <QPainter>

namespace sparsity::ui {

MatrixView::MatrixView(QWidget *parent) : QWidget(parent)
{
    setMinimumSize(200, 160);
}

void MatrixView::showMatrix(const QString &title, const core::DenseTensor<double> &values)
{
    m_title = title;
    m_message.clear();
    m_heatmap = renderHeatmap(values, nullptr);
    m_values = values;
    m_pooled = {};
    update();
}

void MatrixView::showMessage(const QString &message)
{
    m_title.clear();
    m_message = message;
    m_heatmap = {};
    m_values = {};
    m_pooled = {};
    update();
}

void MatrixView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    if (m_heatmap.image.isNull()) {
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    const int margin = 6;
    const int titleHeight = fontMetrics().height() + margin;
    const int legendWidth = 64;
    painter.drawText(QRect(margin, 0, width() - 2 * margin, titleHeight), Qt::AlignLeft | Qt::AlignVCenter, m_title);
    QRect area(margin, titleHeight, width() - legendWidth - 3 * margin, height() - titleHeight - margin);
    const QRect bar(area.right() + margin, area.top(), 14, std::min(area.height(), 160));
    const QSize elements = m_heatmap.image.size();
    if (elements.width() <= area.width() && elements.height() <= area.height()) {
        // Small matrices (Jacobians) keep square cells, so rows and columns read as such.
        const int cell = std::min(area.width() / elements.width(), area.height() / elements.height());
        area.setSize(elements * cell);
    }
    if (m_heatmap.image.width() > area.width() || m_heatmap.image.height() > area.height()) {
        if (m_pooled.isNull() || m_pooled.size() != m_heatmap.image.size().boundedTo(area.size()))
            m_pooled = renderMaxAbsPooled(m_values, m_heatmap.maxAbs, area.size());
        painter.drawImage(area, m_pooled);
    } else {
        painter.drawImage(area, m_heatmap.image);
    }
    drawColourLegend(painter, bar, m_heatmap, palette());
}

} // namespace sparsity::ui
