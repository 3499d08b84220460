#include "ui/views/matrix_view.h"

#include "ui/document/index_text.h"
#include "ui/document/tensor_document.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/colour_legend.h"
#include "ui/views/heatmap_axes.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

namespace sparsity::ui {
namespace {

constexpr int kMargin = 6;

// What a view without a matrix holds, so m_values is never null.
std::shared_ptr<const core::DenseTensor<double>> noValues()
{
    static const auto none = std::make_shared<const core::DenseTensor<double>>();
    return none;
}

} // namespace

MatrixView::MatrixView(TensorDocument *document, QWidget *parent) : QWidget(parent), m_document(document), m_values(noValues())
{
    setMinimumSize(200, 160);
    if (m_document) {
        setMouseTracking(true);
        connect(m_document, &TensorDocument::selectionChanged, this, &MatrixView::renderSelection);
        connect(m_document, &TensorDocument::sliceChanged, this, &MatrixView::renderSelection);
        // A new tensor invalidates the link until the panel shows a matrix made from it.
        connect(m_document, &TensorDocument::tensorChanged, this, [this] {
            if (!linkFits(m_link))
                m_link = CellLink::None;
            renderSelection();
        });
    }
}

bool MatrixView::linkFits(CellLink link) const
{
    if (!m_document || !m_document->hasTensor() || link == CellLink::None || m_values->shape.size() != 2)
        return false;
    const auto rows = m_values->shape[0], cols = m_values->shape[1];
    const bool flatGrid = m_document->slice().empty();
    switch (link) {
    case CellLink::Elements:
        return flatGrid && rows == m_document->gridRows() && cols == m_document->gridCols();
    case CellLink::Rows:
        return flatGrid && rows == m_document->gridRows() && cols == 1;
    case CellLink::ElementRows:
        return rows == static_cast<std::int64_t>(m_document->values().values.size());
    case CellLink::None:
        break;
    }
    return false;
}

void MatrixView::showMatrix(const QString &title,
                            const core::DenseTensor<double> &values,
                            CellLink link,
                            const ColourScale *scale)
{
    showMatrix(title, pictureOf(values, scale), link);
}

void MatrixView::showMatrix(const QString &title, MatrixPicture picture, CellLink link)
{
    m_title = title;
    m_message.clear();
    m_heatmap = std::move(picture.heatmap);
    m_values = picture.values ? std::move(picture.values) : noValues();
    m_cellNames.reset();
    m_firstRow = 0;
    m_pooled = {};
    m_link = linkFits(link) ? link : CellLink::None;
    layoutArea();
    renderSelection();
}

void MatrixView::setLink(CellLink link)
{
    m_link = linkFits(link) ? link : CellLink::None;
    renderSelection();
}

QString MatrixView::toolTipAt(const QPoint &position) const
{
    auto cell = cellAt(position);
    if (!cell)
        return {};
    // As the heatmap lays them out: rows along dim 0, everything else in a row.
    const auto cols = m_values->shape.size() >= 2 ? core::numel(m_values->shape, 1, m_values->shape.size())
                                                  : static_cast<std::int64_t>(m_values->values.size());
    // A pooled heatmap's pixel shows the strongest element of its block: the tooltip names that
    // one (the cell under the cursor is often a 0 beside it), and the block's extent.
    QString block;
    if (pooled()) {
        const QSize pixels = m_heatmap.image.size().boundedTo(m_area.size());
        const QPoint pixel(
            static_cast<int>(static_cast<std::int64_t>(position.x() - m_area.left()) * pixels.width() / m_area.width()),
            static_cast<int>(static_cast<std::int64_t>(position.y() - m_area.top()) * pixels.height() / m_area.height()));
        const auto picked = pooledCell(*m_values, m_heatmap.scale, m_area.size(), pixel);
        cell = QPoint(static_cast<int>(picked.col), static_cast<int>(picked.row));
        block = tr(" (the strongest of rows %1–%2, columns %3–%4)")
                    .arg(m_firstRow + picked.row0)
                    .arg(m_firstRow + picked.row1 - 1)
                    .arg(picked.col0)
                    .arg(picked.col1 - 1);
    }
    const double value = m_values->values[static_cast<std::size_t>(cell->y() * cols + cell->x())];
    const auto named = [](const QString &name, const core::Shape &shape, std::int64_t flat) {
        return shape.empty() ? name : name + indexText(shape, flat); // a 0-d value has no index
    };
    if (m_cellNames)
        return QStringLiteral("∂%1 / ∂%2 = %3")
                   .arg(named(m_cellNames->colName, m_cellNames->colShape, cell->x()),
                        named(m_cellNames->rowName, m_cellNames->rowShape, cell->y()))
                   .arg(value, 0, 'g', 8)
               + block;
    return QStringLiteral("[%1, %2] = %3").arg(m_firstRow + cell->y()).arg(cell->x()).arg(value, 0, 'g', 8) + block;
}

void MatrixView::setFirstRow(std::int64_t row)
{
    m_firstRow = row;
    update();
}

void MatrixView::setCellNames(const CellNames &names)
{
    // Only names that fit the matrix: a stale shape would name the wrong elements.
    const bool fits = m_values->shape.size() == 2 && core::numel(names.rowShape) == m_values->shape[0]
                      && core::numel(names.colShape) == m_values->shape[1];
    m_cellNames = fits ? std::optional<CellNames>(names) : std::nullopt;
}

bool MatrixView::event(QEvent *event)
{
    return answerCellToolTip(this, event, [this](const QPoint &at) { return toolTipAt(at); }) || QWidget::event(event);
}

void MatrixView::showMessage(const QString &message)
{
    m_title.clear();
    m_message = message;
    m_heatmap = {};
    m_values = noValues();
    m_pooled = {};
    m_link = CellLink::None;
    m_selectionWash = {};
    update();
}

void MatrixView::renderSelection()
{
    m_selectionWash = {};
    if (m_link != CellLink::None && m_document && !m_document->selected().empty()) {
        const auto &selected = m_document->selected();
        const auto rows = static_cast<int>(m_values->shape[0]);
        const int cols = m_link == CellLink::Elements ? static_cast<int>(m_values->shape[1]) : 1;
        const auto gridCols = static_cast<std::size_t>(m_document->gridCols());
        m_selectionWash = QImage(cols, rows, QImage::Format_ARGB32);
        for (int r = 0; r < rows; ++r) {
            auto *line = reinterpret_cast<QRgb *>(m_selectionWash.scanLine(r));
            const auto row = static_cast<std::size_t>(r);
            if (m_link == CellLink::Elements) {
                for (int c = 0; c < cols; ++c)
                    line[c] = selected[row * gridCols + static_cast<std::size_t>(c)] ? kSelectedWash : kUnselectedWash;
            } else if (m_link == CellLink::Rows) {
                const auto begin = selected.begin() + static_cast<std::ptrdiff_t>(row * gridCols);
                line[0] = std::any_of(begin, begin + static_cast<std::ptrdiff_t>(gridCols), [](auto b) { return b != 0; })
                              ? kSelectedWash
                              : kUnselectedWash;
            } else {
                line[0] = selected[row] ? kSelectedWash : kUnselectedWash;
            }
        }
    }
    update();
}

void MatrixView::layoutArea()
{
    const int titleHeight = fontMetrics().height() + kMargin;
    // Room for the row indices at the left and the column indices below.
    const int rowLabels = fontMetrics().horizontalAdvance(QString::number(std::max(m_heatmap.image.height() - 1, 0))) + 6;
    const int columnLabels = fontMetrics().height() + 4;
    const int legendWidth = colourLegendWidth(m_heatmap, 14, fontMetrics());
    m_area = QRect(kMargin + rowLabels, titleHeight, width() - legendWidth - 3 * kMargin - rowLabels,
                   height() - titleHeight - kMargin - columnLabels);
    const QSize elements = m_heatmap.image.size();
    if (!elements.isEmpty() && elements.width() <= m_area.width() && elements.height() <= m_area.height()) {
        // Small matrices (Jacobians) keep square cells, so rows and columns read as such.
        const int cell = std::min(m_area.width() / elements.width(), m_area.height() / elements.height());
        m_area.setSize(elements * cell);
    }
}

void MatrixView::resizeEvent(QResizeEvent *event)
{
    layoutArea();
    QWidget::resizeEvent(event);
}

bool MatrixView::pooled() const { return m_heatmap.image.width() > m_area.width() || m_heatmap.image.height() > m_area.height(); }

std::optional<QPoint> MatrixView::cellAt(const QPoint &position) const
{
    if (m_heatmap.image.isNull() || !m_area.contains(position))
        return std::nullopt;
    const QSize cells = m_heatmap.image.size();
    const int col = static_cast<int>(static_cast<std::int64_t>(position.x() - m_area.left()) * cells.width() / m_area.width());
    const int row = static_cast<int>(static_cast<std::int64_t>(position.y() - m_area.top()) * cells.height() / m_area.height());
    return QPoint(std::clamp(col, 0, cells.width() - 1), std::clamp(row, 0, cells.height() - 1));
}

QPoint MatrixView::positionOf(std::int64_t row, std::int64_t col) const
{
    const QSize cells = m_heatmap.image.size();
    return QPoint(m_area.left() + static_cast<int>((2 * col + 1) * m_area.width() / (2 * std::max(cells.width(), 1))),
                  m_area.top() + static_cast<int>((2 * row + 1) * m_area.height() / (2 * std::max(cells.height(), 1))));
}

std::int64_t MatrixView::elementOf(const QPoint &cell) const
{
    switch (m_link) {
    case CellLink::Elements:
        return static_cast<std::int64_t>(cell.y()) * m_values->shape[1] + cell.x();
    case CellLink::Rows:
        return static_cast<std::int64_t>(cell.y()) * m_document->gridCols();
    case CellLink::ElementRows:
        return cell.y();
    case CellLink::None:
        break;
    }
    return -1;
}

void MatrixView::selectTo(const QPoint &cell)
{
    const auto r0 = std::int64_t{m_anchor->y()}, r1 = std::int64_t{cell.y()};
    switch (m_link) {
    case CellLink::Elements:
        m_document->setSelection(ElementSelection::rectangle(r0, r1, m_anchor->x(), cell.x()));
        break;
    case CellLink::Rows:
        m_document->setSelection(ElementSelection::rectangle(r0, r1, 0, m_document->gridCols() - 1));
        break;
    case CellLink::ElementRows:
        m_document->setSelection(ElementSelection::flatRange(r0, r1));
        break;
    case CellLink::None:
        break;
    }
}

void MatrixView::mousePressEvent(QMouseEvent *event)
{
    if (m_link == CellLink::None || event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    const auto cell = cellAt(event->position().toPoint());
    if (!cell) {
        m_document->setSelection({});
        return;
    }
    m_anchor = cell;
    selectTo(*cell);
}

void MatrixView::mouseMoveEvent(QMouseEvent *event)
{
    if (m_link == CellLink::None)
        return QWidget::mouseMoveEvent(event);
    const auto cell = cellAt(event->position().toPoint());
    m_document->setHover(cell ? std::optional<std::int64_t>(elementOf(*cell)) : std::nullopt);
    if (m_anchor && cell && (event->buttons() & Qt::LeftButton))
        selectTo(*cell);
}

void MatrixView::mouseReleaseEvent(QMouseEvent *event)
{
    m_anchor.reset();
    QWidget::mouseReleaseEvent(event);
}

void MatrixView::leaveEvent(QEvent *event)
{
    if (m_link != CellLink::None)
        m_document->setHover(std::nullopt);
    QWidget::leaveEvent(event);
}

void MatrixView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    if (m_heatmap.image.isNull()) {
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, m_message);
        return;
    }
    const int titleHeight = fontMetrics().height() + kMargin;
    painter.drawText(QRect(kMargin, 0, width() - 2 * kMargin, titleHeight), Qt::AlignLeft | Qt::AlignVCenter, m_title);
    if (pooled()) {
        if (m_pooled.isNull() || m_pooled.size() != m_heatmap.image.size().boundedTo(m_area.size()))
            m_pooled = renderPooled(*m_values, m_heatmap.scale, m_area.size());
        painter.drawImage(m_area, m_pooled);
    } else {
        painter.drawImage(m_area, m_heatmap.image);
    }
    if (!m_selectionWash.isNull())
        painter.drawImage(m_area, m_selectionWash);
    // Axes: cell indices.
    const QSize cells = m_heatmap.image.size();
    const int spacing = fontMetrics().horizontalAdvance(QString::number(cells.width() - 1)) + 16;
    drawAxes(painter, m_area, axisTicks(0, cells.height(), m_area.top(), m_area.height(), 2 * fontMetrics().height(), m_firstRow),
             axisTicks(0, cells.width(), m_area.left(), m_area.width(), spacing), palette());
    const QRect bar(m_area.right() + kMargin, m_area.top(), 14, std::min(m_area.height(), 160));
    drawColourLegend(painter, bar, m_heatmap, palette());
}

} // namespace sparsity::ui
