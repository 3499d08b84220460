#include "ui/views/tensor_preview.h"

#include "ui/document/tensor_document.h"
#include "ui/views/cell_tooltip.h"
#include "ui/views/colour_legend.h"

#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace sparsity::ui {

TensorPreview::TensorPreview(TensorDocument *document, QWidget *parent) : QWidget(parent), m_document(document)
{
    setMinimumSize(240, 160);
    setAutoFillBackground(true);
    connect(document, &TensorDocument::tensorChanged, this, [this] {
        // Another element gets its own scale; the same one (a scroll, an edit, undo) keeps it,
        // so a colour means one value while the user moves through it.
        const auto &source = m_document->source();
        const QString element =
            source.filePath.isEmpty() ? m_document->title() : source.filePath + QLatin1Char('\n') + source.elementPath;
        if (element != m_scaleOf) {
            m_tensorScale.reset();
            m_scaleOf = element;
        }
        render();
    });
    connect(document, &TensorDocument::titleChanged, this, [this] {
        if (m_heatmap.image.isNull()) // a message is shown instead, without a title
            return;
        updateTitle();
        update();
    });
    connect(document, &TensorDocument::sparsifierChanged, this, &TensorPreview::render);
    connect(document, &TensorDocument::selectionChanged, this, &TensorPreview::renderSelection);
    connect(document, &TensorDocument::sliceChanged, this, &TensorPreview::render);
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    // A right click opens the menu on release, unless the right button dragged (a pan).
    setContextMenuPolicy(Qt::PreventContextMenu);
    createColourMenus();
    showMessage(tr("Select a tensor in the Files panel to preview it."));
}

QString TensorPreview::nothingToDraw() const
{
    const auto &values = m_document->values();
    const auto shape = QString::fromStdString(core::shapeToString(values.shape));
    if (values.values.empty())
        return tr("%1 is empty (shape %2): it has no elements to draw.").arg(m_document->title(), shape);
    if (values.shape.empty())
        return tr("%1 is a scalar (0-d): %2").arg(m_document->title()).arg(values.values[0], 0, 'g', 8);
    const auto *specified = m_document->specified();
    std::int64_t finite = 0, specifiedCount = 0;
    for (std::size_t k = 0; k < values.values.size(); ++k)
        if (!specified || (*specified)[k]) {
            ++specifiedCount;
            finite += std::isfinite(values.values[k]);
        }
    if (specifiedCount == 0)
        return tr("%1 (shape %2): none of its elements is specified.").arg(m_document->title(), shape);
    if (finite == 0)
        return tr("%1 (shape %2): none of its %3 specified elements is a finite number (all NaN or ±Inf).")
            .arg(m_document->title(), shape)
            .arg(specifiedCount);
    return {};
}

void TensorPreview::render()
{
    if (!m_document->hasTensor())
        return;
    // A message instead of a plot with nothing on it.
    if (const auto nothing = nothingToDraw(); !nothing.isEmpty())
        return showMessage(nothing);
    const auto &values = m_document->values();
    const QSize before = m_heatmap.image.size();
    const core::Mask *pruned = m_document->hasPreview() ? &m_document->pruned() : nullptr;
    if (!m_tensorScale)
        m_tensorScale = colourScaleOf(values, m_document->specified(), m_colourSettings);
    // The kept range, with the extremes of the values loaded now (the legend's ≥ / ≤).
    const ColourScale scale = colourScaleOf(values, m_document->specified(),
                                            {m_tensorScale->map, ColourRange::Manual, m_tensorScale->low, m_tensorScale->high});
    if (m_document->slice().empty()) {
        m_heatmap = renderHeatmap(values, m_document->specified(), pruned, &scale);
    } else {
        // An N-d tensor: the 2-d slice the document has chosen.
        const auto offset = static_cast<std::ptrdiff_t>(m_document->gridOffset());
        const auto count = static_cast<std::ptrdiff_t>(m_document->gridRows() * m_document->gridCols());
        core::DenseTensor<double> grid{{m_document->gridRows(), m_document->gridCols()}, {}};
        grid.values.assign(values.values.begin() + offset, values.values.begin() + offset + count);
        const auto part = [&](const core::Mask *mask) {
            return mask ? std::optional<core::Mask>(core::Mask(mask->begin() + offset, mask->begin() + offset + count))
                        : std::nullopt;
        };
        const auto specifiedPart = part(m_document->specified()), prunedPart = part(pruned);
        m_heatmap = renderHeatmap(grid, specifiedPart ? &*specifiedPart : nullptr, prunedPart ? &*prunedPart : nullptr, &scale);
    }
    if (m_heatmap.image.size() != before)
        resetView();
    updateTitle();
    m_message.clear();
    renderSelection();
}

void TensorPreview::updateTitle()
{
    const auto &values = m_document->values();
    m_title = m_document->title();
    if (!values.shape.empty() && m_document->totalRows() > values.shape[0]) {
        const auto first = m_document->source().firstRow;
        m_title += tr("  (rows %1–%2 of %3)").arg(first).arg(first + values.shape[0] - 1).arg(m_document->totalRows());
    }
    if (!m_document->slice().empty()) {
        QStringList at;
        for (const auto index : m_document->slice())
            at << QString::number(index);
        m_title += QStringLiteral("  [%1, :, :]").arg(at.join(QStringLiteral(", ")));
    }
}

void TensorPreview::renderSelection()
{
    m_selectionWash = {};
    const auto &selected = m_document->selected();
    // One element (a plain click) is outlined, not washed: washing out the whole map for one
    // element hides the picture the user clicked on.
    if (!selected.empty() && !m_heatmap.image.isNull() && m_document->selectedCount() > 1) {
        // Unselected elements are washed towards white so the selection stands out in colour.
        m_selectionWash = QImage(m_heatmap.image.size(), QImage::Format_ARGB32);
        const int cols = m_heatmap.image.width();
        const auto offset = static_cast<std::size_t>(m_document->gridOffset());
        for (int r = 0; r < m_selectionWash.height(); ++r) {
            auto *line = reinterpret_cast<QRgb *>(m_selectionWash.scanLine(r));
            for (int c = 0; c < cols; ++c)
                line[c] =
                    selected[offset + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)]
                        ? kSelectedWash
                        : kUnselectedWash;
        }
    }
    update();
}

std::int64_t TensorPreview::rowBase() const { return m_document->values().shape.size() == 2 ? m_document->source().firstRow : 0; }

std::int64_t TensorPreview::columnBase() const
{
    return m_document->values().shape.size() == 1 ? m_document->source().firstRow : 0;
}

QRect TensorPreview::imageArea() const
{
    const int margin = 8;
    const auto metrics = fontMetrics();
    const int titleHeight = metrics.height() + margin;
    const int legendWidth = std::max(colourLegendWidth(m_heatmap, 16, metrics), 16 + 6 + metrics.horizontalAdvance(tr("pruned")));
    // Room for the row labels at the left (the widest is the last row's) and the column labels below.
    const std::int64_t lastRow = rowBase() + std::max(m_heatmap.image.height(), 1) - 1;
    const int rowLabels = metrics.horizontalAdvance(QString::number(lastRow)) + 6;
    const int columnLabels = metrics.height() + 4;
    return QRect(margin + rowLabels, titleHeight + margin, width() - legendWidth - 3 * margin - rowLabels,
                 height() - titleHeight - 2 * margin - columnLabels);
}

QList<AxisTick> TensorPreview::rowTicks() const
{
    if (m_heatmap.image.isNull())
        return {};
    const QRect area = imageArea();
    return axisTicks(m_view.y(), m_view.height(), area.top(), area.height(), 2 * fontMetrics().height(), rowBase());
}

QList<AxisTick> TensorPreview::columnTicks() const
{
    if (m_heatmap.image.isNull())
        return {};
    const QRect area = imageArea();
    const std::int64_t widest = columnBase() + m_heatmap.image.width() - 1;
    const int spacing = fontMetrics().horizontalAdvance(QString::number(widest)) + 16;
    return axisTicks(m_view.x(), m_view.width(), area.left(), area.width(), spacing, columnBase());
}

QString TensorPreview::toolTipAt(const QPoint &position) const
{
    const auto element = shownElementAt(position);
    if (!element)
        return {};
    return m_document->describeElement(m_document->gridOffset()
                                       + static_cast<std::int64_t>(element->y()) * m_heatmap.image.width() + element->x());
}

bool TensorPreview::event(QEvent *event)
{
    return answerCellToolTip(this, event, [this](const QPoint &at) { return toolTipAt(at); }) || QWidget::event(event);
}

void TensorPreview::createColourMenus()
{
    m_mapMenu = new QMenu(tr("Colour &Map"), this);
    m_mapMenu->setObjectName(QStringLiteral("menu.colour.map"));
    auto *maps = new QActionGroup(this);
    for (const auto &info : kColourMaps) {
        auto *action = m_mapMenu->addAction(tr(info.label));
        action->setObjectName(QStringLiteral("action.colour.map.")
                              + QString::fromUtf8(info.key.data(), static_cast<qsizetype>(info.key.size())));
        action->setCheckable(true);
        action->setChecked(info.map == m_colourSettings.map);
        maps->addAction(action);
        connect(action, &QAction::triggered, this, [this, map = info.map] {
            auto settings = m_colourSettings;
            settings.map = map;
            setColourSettings(settings);
        });
    }
    m_rangeMenu = new QMenu(tr("Colour &Range"), this);
    m_rangeMenu->setObjectName(QStringLiteral("menu.colour.range"));
    auto *ranges = new QActionGroup(this);
    const auto addRange = [&](const QString &text, const QString &name, ColourRange range) {
        auto *action = m_rangeMenu->addAction(text);
        action->setObjectName(name);
        action->setCheckable(true);
        action->setChecked(range == m_colourSettings.range);
        ranges->addAction(action);
        return action;
    };
    connect(addRange(tr("&Robust (0.5th–99.5th percentile)"), QStringLiteral("action.colour.range.robust"), ColourRange::Robust),
            &QAction::triggered, this, [this] {
                auto settings = m_colourSettings;
                settings.range = ColourRange::Robust;
                setColourSettings(settings);
            });
    connect(addRange(tr("&Full (smallest to largest)"), QStringLiteral("action.colour.range.full"), ColourRange::Full),
            &QAction::triggered, this, [this] {
                auto settings = m_colourSettings;
                settings.range = ColourRange::Full;
                setColourSettings(settings);
            });
    connect(addRange(tr("&Set Range…"), QStringLiteral("action.colour.range.manual"), ColourRange::Manual), &QAction::triggered,
            this, &TensorPreview::askColourRange);
}

void TensorPreview::askColourRange()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Colour range"));
    auto *form = new QFormLayout(&dialog);
    const auto spin = [&](double value) {
        auto *box = new QDoubleSpinBox;
        box->setRange(-1e300, 1e300);
        box->setDecimals(6);
        box->setValue(value);
        return box;
    };
    const auto &scale = m_heatmap.scale;
    auto *low = spin(m_colourSettings.range == ColourRange::Manual ? m_colourSettings.low : scale.low);
    auto *high = spin(m_colourSettings.range == ColourRange::Manual ? m_colourSettings.high : scale.high);
    low->setObjectName(QStringLiteral("colour.range.low"));
    high->setObjectName(QStringLiteral("colour.range.high"));
    form->addRow(tr("Lowest colour at"), low);
    form->addRow(tr("Highest colour at"), high);
    // Why OK is disabled, where the user looks: a disabled button alone says nothing.
    auto *reason = new QLabel(tr("The lowest colour must be at a value below the highest."));
    reason->setObjectName(QStringLiteral("colour.range.reason"));
    reason->setWordWrap(true);
    form->addRow(reason);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    const auto check = [&] {
        const bool valid = low->value() < high->value();
        buttons->button(QDialogButtonBox::Ok)->setEnabled(valid);
        reason->setVisible(!valid);
    };
    check();
    connect(low, &QDoubleSpinBox::valueChanged, &dialog, check);
    connect(high, &QDoubleSpinBox::valueChanged, &dialog, check);
    if (dialog.exec() != QDialog::Accepted) {
        setColourSettings(m_colourSettings); // the menu's check marks go back
        return;
    }
    auto settings = m_colourSettings;
    settings.range = ColourRange::Manual;
    settings.low = low->value();
    settings.high = high->value();
    setColourSettings(settings);
}

void TensorPreview::setColourSettings(const ColourSettings &settings)
{
    const bool changed = !(settings == m_colourSettings);
    m_colourSettings = settings;
    for (auto *action : m_mapMenu->actions())
        action->setChecked(action->objectName().endsWith(QString::fromUtf8(infoOf(settings.map).key.data())));
    const char *range = settings.range == ColourRange::Robust ? "robust"
                        : settings.range == ColourRange::Full ? "full"
                                                              : "manual";
    for (auto *action : m_rangeMenu->actions())
        action->setChecked(action->objectName().endsWith(QLatin1String(range)));
    if (!changed)
        return;
    m_tensorScale.reset();
    render();
    emit colourSettingsChanged(m_colourSettings);
}

std::unique_ptr<QMenu> TensorPreview::contextMenuAt(const QPoint &position)
{
    auto menu = std::make_unique<QMenu>(this);
    const auto element = shownElementAt(position);
    std::optional<double> value;
    if (element) {
        const auto k = static_cast<std::size_t>(
            m_document->gridOffset() + static_cast<std::int64_t>(element->y()) * m_heatmap.image.width() + element->x());
        if (!m_document->specified() || (*m_document->specified())[k])
            value = m_document->values().values[k];
    }
    auto *copy = menu->addAction(tr("&Copy Value"), this,
                                 [value] { QApplication::clipboard()->setText(QString::number(*value, 'g', 17)); });
    copy->setObjectName(QStringLiteral("action.preview.copy_value"));
    copy->setEnabled(value.has_value());
    menu->addSeparator();
    menu->addAction(tr("Zoom &In"), this, [this, position] { zoomAt(position, 2.0); })->setEnabled(!m_heatmap.image.isNull());
    menu->addAction(tr("Zoom &Out"), this, [this, position] { zoomAt(position, 0.5); })->setEnabled(!m_heatmap.image.isNull());
    menu->addAction(tr("Show &All"), this, &TensorPreview::resetView)->setEnabled(!m_heatmap.image.isNull());
    menu->addSeparator();
    menu->addMenu(m_mapMenu);
    menu->addMenu(m_rangeMenu);
    menu->addSeparator();
    auto *none = menu->addAction(tr("Select &None"), this, [this] { m_document->setSelection({}); });
    none->setObjectName(QStringLiteral("action.preview.select_none"));
    none->setEnabled(m_document->selectedCount() > 0);
    return menu;
}

std::optional<QPoint> TensorPreview::elementAt(const QPoint &position) const
{
    const QRect area = imageArea();
    if (m_heatmap.image.isNull() || !area.contains(position))
        return std::nullopt;
    const QPointF at = viewPointAt(position);
    const int col = static_cast<int>(std::floor(at.x())), row = static_cast<int>(std::floor(at.y()));
    return QPoint(std::clamp(col, 0, m_heatmap.image.width() - 1), std::clamp(row, 0, m_heatmap.image.height() - 1));
}

std::optional<QPoint> TensorPreview::shownElementAt(const QPoint &position) const
{
    const auto element = elementAt(position);
    const QRect area = imageArea();
    const QRect shown = m_view.toAlignedRect();
    if (!element || (shown.width() <= area.width() && shown.height() <= area.height()))
        return element;
    // Pooled as paintEvent pools it: the pixel shows its block's most prominent element.
    return pooledImagePixel(m_heatmap.image, shown, area.size(), m_heatmap.scale.map, position - area.topLeft());
}

QPoint TensorPreview::positionOf(std::int64_t row, std::int64_t col) const
{
    const QRect area = imageArea();
    const double w = static_cast<double>(area.width()) / m_view.width();
    const double h = static_cast<double>(area.height()) / m_view.height();
    return QPoint(area.left() + static_cast<int>((static_cast<double>(col) + 0.5 - m_view.x()) * w),
                  area.top() + static_cast<int>((static_cast<double>(row) + 0.5 - m_view.y()) * h));
}

QPointF TensorPreview::viewPointAt(const QPoint &position) const
{
    const QRect area = imageArea();
    return {m_view.x() + (position.x() - area.left()) * m_view.width() / std::max(area.width(), 1),
            m_view.y() + (position.y() - area.top()) * m_view.height() / std::max(area.height(), 1)};
}

void TensorPreview::resetView()
{
    m_view = QRectF(QPointF(0, 0), QSizeF(m_heatmap.image.size()));
    update();
}

void TensorPreview::setView(const QRectF &view)
{
    // At least one element across, at most the whole image, and never outside it.
    const QSizeF full(m_heatmap.image.size());
    QSizeF size(std::clamp(view.width(), std::min(1.0, full.width()), full.width()),
                std::clamp(view.height(), std::min(1.0, full.height()), full.height()));
    const QPointF topLeft(std::clamp(view.x(), 0.0, full.width() - size.width()),
                          std::clamp(view.y(), 0.0, full.height() - size.height()));
    m_view = QRectF(topLeft, size);
    update();
}

void TensorPreview::zoomAt(const QPoint &position, double factor)
{
    // The element under the mouse stays under it.
    const QPointF anchor = viewPointAt(position);
    const double scale = 1.0 / factor;
    setView(QRectF(anchor.x() - (anchor.x() - m_view.x()) * scale, anchor.y() - (anchor.y() - m_view.y()) * scale,
                   m_view.width() * scale, m_view.height() * scale));
}

void TensorPreview::wheelEvent(QWheelEvent *event)
{
    if (m_heatmap.image.isNull())
        return;
    zoomAt(event->position().toPoint(), std::pow(2.0, event->angleDelta().y() / 240.0)); // a notch: x1.33
    event->accept();
}

void TensorPreview::zoomBy(double factor) { zoomAt(imageArea().center(), factor); }

void TensorPreview::keyPressEvent(QKeyEvent *event)
{
    const QPoint centre = imageArea().center();
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomAt(centre, 2.0);
        break;
    case Qt::Key_Minus:
        zoomAt(centre, 0.5);
        break;
    case Qt::Key_Home:
    case Qt::Key_0:
        resetView();
        break;
    case Qt::Key_Menu:
        contextMenuAt(centre)->exec(mapToGlobal(centre));
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void TensorPreview::selectTo(const QPoint &element, bool wholeRows)
{
    const std::int64_t lastCol = wholeRows ? m_heatmap.image.width() - 1 : element.x();
    const std::int64_t firstCol = wholeRows ? 0 : m_anchor->x();
    m_document->setSelection(ElementSelection::rectangle(m_anchor->y(), element.y(), firstCol, lastCol));
}

void TensorPreview::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::MiddleButton || event->button() == Qt::RightButton) {
        m_panFrom = event->position();
        m_panned = false;
        return;
    }
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    // A click selects what the pixel shows (and what the Inspector named); a drag from it
    // then follows the cursor.
    const auto element = shownElementAt(event->position().toPoint());
    if (!element) {
        m_document->setSelection({});
        return;
    }
    m_anchor = element;
    selectTo(*element, event->modifiers() & Qt::ShiftModifier);
}

void TensorPreview::mouseMoveEvent(QMouseEvent *event)
{
    if (m_panFrom && (event->buttons() & (Qt::MiddleButton | Qt::RightButton))) {
        const QRect area = imageArea();
        const QPointF delta = event->position() - *m_panFrom;
        m_panFrom = event->position();
        m_panned |= !delta.isNull();
        setView(m_view.translated(-delta.x() * m_view.width() / std::max(area.width(), 1),
                                  -delta.y() * m_view.height() / std::max(area.height(), 1)));
        return;
    }
    const auto shownThere = shownElementAt(event->position().toPoint());
    m_document->setHover(
        shownThere ? std::optional<std::int64_t>(
            m_document->gridOffset() + static_cast<std::int64_t>(shownThere->y()) * m_heatmap.image.width() + shownThere->x())
                   : std::nullopt);
    const auto element = elementAt(event->position().toPoint());
    if (m_anchor && element && (event->buttons() & Qt::LeftButton))
        selectTo(*element, event->modifiers() & Qt::ShiftModifier);
}

void TensorPreview::mouseReleaseEvent(QMouseEvent *event)
{
    const bool menu = event->button() == Qt::RightButton && m_panFrom && !m_panned;
    m_anchor.reset();
    m_panFrom.reset();
    if (menu) {
        contextMenuAt(event->position().toPoint())->exec(event->globalPosition().toPoint());
        return;
    }
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

QString TensorPreview::titleText() const
{
    if (m_view.size() == QSizeF(m_heatmap.image.size()))
        return m_title;
    // The part shown, in the tensor's rows and columns, as the axes number them.
    return m_title
           + tr("  — rows %1–%2, columns %3–%4")
                 .arg(rowBase() + static_cast<qint64>(m_view.top()))
                 .arg(rowBase() + static_cast<qint64>(std::ceil(m_view.bottom())) - 1)
                 .arg(columnBase() + static_cast<qint64>(m_view.left()))
                 .arg(columnBase() + static_cast<qint64>(std::ceil(m_view.right())) - 1);
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
    const QString title = titleText();
    // Elided, not cut mid-number, where the heatmap is narrower than its title.
    painter.drawText(QRect(margin, margin / 2, width() - 2 * margin, titleHeight), Qt::AlignLeft | Qt::AlignVCenter,
                     fontMetrics().elidedText(title, Qt::ElideRight, width() - 2 * margin));
    const QRect area = imageArea();
    // Tables are drawn filling the area (matplotlib's aspect="auto"); nearest-neighbour
    // scaling keeps single elements crisp.
    const QRect target = area;
    // Level of detail: more elements than pixels are pooled (the strongest colour of each
    // block), fewer are scaled up crisp; the selection wash is drawn over either.
    const QRect shown = m_view.toAlignedRect();
    if (shown.width() > target.width() || shown.height() > target.height()) {
        // Pooling visits every shown element: keep the result until the image, the view or the
        // size changes (a repaint for a hover or a wash costs nothing then).
        const PoolKey key{m_heatmap.image.cacheKey(), shown, target.size()};
        if (!(key == m_pooledKey)) {
            m_pooled = poolImage(m_heatmap.image, shown, target.size(), m_heatmap.scale.map);
            m_pooledKey = key;
        }
        painter.drawImage(target, m_pooled, QRectF(QPointF(0, 0), m_pooled.size()));
    } else {
        painter.drawImage(target, m_heatmap.image, m_view);
    }
    if (!m_selectionWash.isNull())
        painter.drawImage(target, m_selectionWash, m_view);
    if (const auto &s = m_document->selection();
        m_document->selectedCount() == 1 && s.kind == ElementSelection::Kind::Rectangle && s.row0 == s.row1) {
        const double w = static_cast<double>(target.width()) / m_view.width();
        const double h = static_cast<double>(target.height()) / m_view.height();
        const QRectF cell(target.left() + (static_cast<double>(s.col0) - m_view.x()) * w,
                          target.top() + (static_cast<double>(s.row0) - m_view.y()) * h, std::max(w, 3.0), std::max(h, 3.0));
        painter.save();
        painter.setClipRect(target);
        painter.setPen(QPen(Qt::black, 2));
        painter.drawRect(cell.adjusted(-1, -1, 1, 1));
        painter.setPen(QPen(Qt::white, 1));
        painter.drawRect(cell.adjusted(-2.5, -2.5, 2.5, 2.5));
        painter.restore();
    }
    // The frame says where the keys go (arrows, + and -, Home): the highlight colour, two pixels
    // wide, while the heatmap has the focus; it looked the same with and without.
    painter.setPen(palette().color(hasFocus() ? QPalette::Highlight : QPalette::Mid));
    painter.drawRect(target.adjusted(0, 0, -1, -1));
    if (hasFocus())
        painter.drawRect(target.adjusted(-1, -1, 0, 0));
    drawAxes(painter, target, rowTicks(), columnTicks(), palette());

    const QRect bar(area.right() + margin, area.top(), 16, std::min(area.height(), 200));
    const int below = drawColourLegend(painter, bar, m_heatmap, palette());
    if (m_document->hasPreview()) {
        const QRect swatch(bar.left(), below + margin, 16, 16);
        painter.fillRect(swatch, QColor::fromRgb(prunedColourOf(m_heatmap.scale.map)));
        painter.setPen(palette().color(QPalette::Mid));
        painter.drawRect(swatch.adjusted(0, 0, -1, -1)); // a light swatch needs its edge
        painter.setPen(palette().color(QPalette::WindowText));
        painter.drawText(swatch.right() + 4, swatch.bottom() - 2, tr("pruned"));
    }
}

} // namespace sparsity::ui
