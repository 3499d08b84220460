#include "ui/views/tensor_preview.h"

#include "ui/document/tensor_document.h"

#include <QLinearGradient>
#include <QPainter>

namespace sparsity::ui {

TensorPreview::TensorPreview(TensorDocument *document, QWidget *parent) : QWidget(parent), m_document(document)
{
    setMinimumSize(320, 240);
    setAutoFillBackground(true);
    connect(document, &TensorDocument::tensorChanged, this, &TensorPreview::render);
    connect(document, &TensorDocument::sparsifierChanged, this, &TensorPreview::render);
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
    update();
}

void TensorPreview::showMessage(const QString &message)
{
    m_heatmap = {};
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
    const int legendWidth = 70;
    painter.drawText(QRect(margin, margin / 2, width() - 2 * margin, titleHeight), Qt::AlignLeft | Qt::AlignVCenter, m_title);
    const QRect area(margin, titleHeight + margin, width() - legendWidth - 3 * margin, height() - titleHeight - 2 * margin);
    // Tables are drawn filling the area (matplotlib's aspect="auto"); nearest-neighbour
    // scaling keeps single elements crisp.
    const QRect target = area;
    painter.drawImage(target, m_heatmap.image);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(target.adjusted(0, 0, -1, -1));

    const QRect bar(area.right() + margin, area.top(), 16, std::min(area.height(), 200));
    QLinearGradient gradient(bar.topLeft(), bar.bottomLeft());
    gradient.setColorAt(0.0, divergingColour(1.0, 1.0));
    gradient.setColorAt(0.5, divergingColour(0.0, 1.0));
    gradient.setColorAt(1.0, divergingColour(-1.0, 1.0));
    painter.fillRect(bar, gradient);
    painter.drawRect(bar.adjusted(0, 0, -1, -1));
    painter.setPen(palette().color(QPalette::WindowText));
    const auto label = [&](double v) { return QString::number(v, 'g', 3); };
    const QString saturated = m_heatmap.trueMaxAbs > m_heatmap.maxAbs ? QStringLiteral("≥") : QString();
    painter.drawText(bar.right() + 4, bar.top() + fontMetrics().ascent(), saturated + label(m_heatmap.maxAbs));
    painter.drawText(bar.right() + 4, bar.center().y() + fontMetrics().ascent() / 2, QStringLiteral("0"));
    painter.drawText(bar.right() + 4, bar.bottom(), (saturated.isEmpty() ? QString() : QStringLiteral("≤")) + label(-m_heatmap.maxAbs));
    if (m_document->hasPreview()) {
        const QRect swatch(bar.left(), bar.bottom() + 2 * margin, 16, 16);
        painter.fillRect(swatch, QColor::fromRgb(kPrunedColour));
        painter.drawText(swatch.right() + 4, swatch.bottom() - 2, tr("pruned"));
    }
}

} // namespace sparsity::ui
