// Linked selection and hover: a selection made in one view (a rectangle or rows on the
// heatmap, a value range on the histogram, cells, rows or Jacobian rows in the optimizer's and
// gradcheck's matrix views) reaches the others only through the document, and the Inspector
// shows the hovered element and the selection's summary.
#include "ui/document/tensor_document.h"
#include "ui/panels/inspector_panel.h"
#include "ui/views/histogram_view.h"
#include "ui/views/matrix_view.h"
#include "ui/views/slice_bar.h"
#include "ui/views/tensor_preview.h"

#include <QSignalSpy>
#include <QSlider>
#include <QTest>
#include <QWheelEvent>
#include <cmath>

namespace core = sparsity::core;
namespace ui = sparsity::ui;

class TestLinkedSelection : public QObject {
    Q_OBJECT

private slots:
    void aSelectionDoesNotOutliveItsTensor();
    void init();
    void cleanup();
    void heatmapRectangleReachesHistogramAndInspector();
    void shiftDragOnHeatmapSelectsRows();
    void histogramValueRangeReachesHeatmap();
    void hoverShowsTheElement();
    void pooledHoverNamesTheElementShown();
    void clickOutsideClears();
    void zoomAndPanKeepTheMapping();
    void slicesOfAnNdTensor();
    void heatmapShowsWhenItHasTheKeys();
    void matrixCellsShareTheSelection();
    void stalenessRowsShareTheSelection();
    void jacobianRowsAreTheInputsElements();
    void matrixOfAnotherShapeIsNotLinked();

private:
    void drag(QWidget *widget, QPoint from, QPoint to, Qt::KeyboardModifiers modifiers = {});
    // A mouse move without buttons, sent to `widget` itself (several test windows overlap).
    static void hover(QWidget *widget, QPoint at);
    // Elements the histogram's selected distribution counts (heights are log10(count + 1)).
    std::int64_t histogramSelectedCount() const;
    // Elements the heatmap shows as selected (not washed out); -1 if the wash is not drawn.
    int unwashedPixels();
    // A shown MatrixView of `values` linked to the document as `link`.
    std::unique_ptr<ui::MatrixView> matrixView(const core::DenseTensor<double> &values, ui::CellLink link);

    ui::TensorDocument *m_document = nullptr;
    ui::TensorPreview *m_preview = nullptr;
    ui::HistogramView *m_histogram = nullptr;
    ui::InspectorPanel *m_inspector = nullptr;
    QRgb m_heatmapRed = 0; // element [7, 5] as drawn without a selection
};

namespace {

// 8 x 6 values -2.4 .. 2.3 in steps of 0.1.
core::Tensor grid()
{
    core::DenseTensor<float> t{{8, 6}, {}};
    for (int i = 0; i < 48; ++i)
        t.values.push_back(-2.4f + 0.1f * static_cast<float>(i));
    return core::Tensor(core::Storage{t});
}

} // namespace

void TestLinkedSelection::init()
{
    m_document = new ui::TensorDocument;
    m_preview = new ui::TensorPreview(m_document);
    m_histogram = new ui::HistogramView(m_document);
    m_inspector = new ui::InspectorPanel(m_document);
    m_document->setTensor(QStringLiteral("grid"), grid(), 8);
    m_preview->resize(600, 480);
    m_histogram->resize(480, 320);
    m_preview->show();
    m_histogram->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_preview));
    QVERIFY(QTest::qWaitForWindowExposed(m_histogram));
    m_heatmapRed = m_preview->grab().toImage().pixel(m_preview->positionOf(7, 5));
}

void TestLinkedSelection::cleanup()
{
    delete m_inspector;
    delete m_histogram;
    delete m_preview;
    delete m_document;
}

void TestLinkedSelection::drag(QWidget *widget, QPoint from, QPoint to, Qt::KeyboardModifiers modifiers)
{
    QTest::mousePress(widget, Qt::LeftButton, modifiers, from);
    QMouseEvent move(QEvent::MouseMove, to, widget->mapToGlobal(to), Qt::NoButton, Qt::LeftButton, modifiers);
    QCoreApplication::sendEvent(widget, &move);
    QTest::mouseRelease(widget, Qt::LeftButton, modifiers, to);
}

void TestLinkedSelection::hover(QWidget *widget, QPoint at)
{
    QMouseEvent move(QEvent::MouseMove, at, widget->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(widget, &move);
}

std::int64_t TestLinkedSelection::histogramSelectedCount() const
{
    const auto points = m_histogram->selectedPoints();
    double total = 0.0;
    for (int i = 0; i < points.size(); i += 2) // two points per bin
        total += std::pow(10.0, points[i].y()) - 1.0;
    return std::llround(total);
}

int TestLinkedSelection::unwashedPixels()
{
    const QImage &wash = m_preview->selectionWash();
    int clear = 0;
    for (int r = 0; r < wash.height(); ++r)
        for (int c = 0; c < wash.width(); ++c)
            clear += qAlpha(wash.pixel(c, r)) == 0;
    // And it is drawn: a washed element looks lighter on screen than without the selection.
    const QPoint washed = m_preview->positionOf(7, 5); // +2.3, strongly red, never selected here
    const QImage shown = m_preview->grab().toImage();
    if (m_document->selected()[7 * 6 + 5] == 0 && qGreen(shown.pixel(washed)) <= qGreen(m_heatmapRed))
        return -1;
    return clear;
}

void TestLinkedSelection::heatmapRectangleReachesHistogramAndInspector()
{
    QSignalSpy changed(m_document, &ui::TensorDocument::selectionChanged);
    drag(m_preview, m_preview->positionOf(2, 1), m_preview->positionOf(4, 3));
    QVERIFY(changed.count() >= 1);
    QCOMPARE(m_document->selectedCount(), 9);
    QCOMPARE(histogramSelectedCount(), 9);
    QCOMPARE(unwashedPixels(), 9);
    // Rows 2..4, cols 1..3: values -2.4 + 0.1 * (6r + c).
    double sum = 0.0;
    for (int r = 2; r <= 4; ++r)
        for (int c = 1; c <= 3; ++c)
            sum += static_cast<double>(-2.4f + 0.1f * static_cast<float>(6 * r + c));
    QVERIFY2(m_inspector->selectionText().startsWith(QStringLiteral("9 elements: sum %1").arg(sum, 0, 'g', 6)),
             qPrintable(m_inspector->selectionText()));
}

void TestLinkedSelection::shiftDragOnHeatmapSelectsRows()
{
    drag(m_preview, m_preview->positionOf(5, 2), m_preview->positionOf(6, 2), Qt::ShiftModifier);
    QCOMPARE(m_document->selectedCount(), 12);
    QCOMPARE(m_document->selection().col0, 0);
    QCOMPARE(m_document->selection().col1, 5);
    QCOMPARE(histogramSelectedCount(), 12);
}

void TestLinkedSelection::histogramValueRangeReachesHeatmap()
{
    auto *viewport = m_histogram->viewport();
    const auto at = [this](double value) {
        const QPointF inChart = m_histogram->chart()->mapToPosition(QPointF(value, 0.5));
        return m_histogram->mapFromScene(m_histogram->chart()->mapToScene(inChart));
    };
    QSignalSpy changed(m_document, &ui::TensorDocument::selectionChanged);
    drag(viewport, at(-0.52), at(0.52), Qt::ShiftModifier);
    QVERIFY(changed.count() >= 1);
    const auto &s = m_document->selection();
    QVERIFY(s.kind == ui::ElementSelection::Kind::ValueRange);
    int expected = 0;
    for (double v : m_document->values().values)
        expected += v >= s.lo && v <= s.hi;
    QVERIFY2(expected >= 9 && expected <= 11, qPrintable(QString::number(expected))); // about -0.5 .. 0.5
    QCOMPARE(m_document->selectedCount(), expected);
    QCOMPARE(unwashedPixels(), expected);
    QVERIFY(!m_document->threshold().has_value()); // Shift+drag selects; it sets no threshold
}

void TestLinkedSelection::hoverShowsTheElement()
{
    QTest::mouseMove(m_preview, m_preview->positionOf(3, 4));
    QCOMPARE(m_document->hover().value(), 3 * 6 + 4);
    const QString expectedValue = QString::number(static_cast<double>(-2.4f + 0.1f * 22.0f), 'g', 8);
    QVERIFY2(m_inspector->elementText().startsWith(QStringLiteral("[3, 4] = %1 (mask 1; no recipe)").arg(expectedValue)),
             qPrintable(m_inspector->elementText()));
    m_document->changeThreshold(1.0);
    QVERIFY2(m_inspector->elementText().endsWith(QStringLiteral("pruned)")), qPrintable(m_inspector->elementText()));
}

// Zoomed out, a pixel stands for a block of rows and shows its most prominent element: the
// Inspector names that one, not a faint neighbour that happens to be under the cursor.
void TestLinkedSelection::pooledHoverNamesTheElementShown()
{
    constexpr std::int64_t rows = 4000, cols = 6, bright = 2005;
    core::DenseTensor<float> t{{rows, cols}, {}};
    t.values.assign(rows * cols, 0.0f); // the colour range is then the bright value's
    t.values[bright * cols + 2] = 5.0f;
    m_document->setTensor(QStringLiteral("tall"), core::Tensor(core::Storage{t}), rows);
    // About 10 rows a pixel: find the pixel that shows the bright element, with another row
    // under the cursor there.
    std::optional<QPoint> spot;
    const QPoint centre = m_preview->positionOf(bright, 2);
    for (int dy = -2; dy <= 2 && !spot; ++dy) {
        const QPoint at = centre + QPoint(0, dy);
        if (m_preview->elementAt(at)->y() != bright && m_preview->shownElementAt(at) == QPoint(2, bright))
            spot = at;
    }
    QVERIFY2(spot, "no pixel shows the bright element with another row under the cursor: the view is not pooled");
    hover(m_preview, *spot);
    QCOMPARE(m_document->hover().value(), bright * cols + 2);
    QVERIFY2(m_inspector->elementText().startsWith(QStringLiteral("[2005, 2] = 5 ")), qPrintable(m_inspector->elementText()));
    // A click there selects that element.
    QTest::mouseClick(m_preview, Qt::LeftButton, {}, *spot);
    const auto &s = m_document->selection();
    QCOMPARE(m_document->selectedCount(), 1);
    QVERIFY(s.kind == ui::ElementSelection::Kind::Rectangle && s.row0 == bright && s.col0 == 2);
    // A pixel of faint rows alone names one of them (the first of its block: all are alike).
    hover(m_preview, m_preview->positionOf(100, 4));
    const auto faint = m_document->hover().value();
    QVERIFY2(faint % cols == 4 && std::abs(faint / cols - 100) < 20, qPrintable(QString::number(faint)));
}

void TestLinkedSelection::clickOutsideClears()
{
    drag(m_preview, m_preview->positionOf(0, 0), m_preview->positionOf(1, 1));
    QCOMPARE(m_document->selectedCount(), 4);
    QTest::mouseClick(m_preview, Qt::LeftButton, {}, QPoint(m_preview->width() - 2, m_preview->height() - 2));
    QCOMPARE(m_document->selectedCount(), 0);
    QVERIFY(m_histogram->selectedPoints().isEmpty());
}

void TestLinkedSelection::zoomAndPanKeepTheMapping()
{
    // A wheel notch in at element [6, 4] keeps it under the mouse and shows fewer elements.
    const QPoint at = m_preview->positionOf(6, 4);
    QWheelEvent wheel(at, m_preview->mapToGlobal(at), {}, QPoint(0, 480), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(m_preview, &wheel);
    QVERIFY(m_preview->view().width() < 6.0 && m_preview->view().height() < 8.0);
    QCOMPARE(m_preview->elementAt(at).value(), QPoint(4, 6));
    // Selecting while zoomed selects the elements under the mouse.
    drag(m_preview, m_preview->positionOf(5, 3), m_preview->positionOf(6, 4));
    QCOMPARE(m_document->selection().row0, 5);
    QCOMPARE(m_document->selection().col1, 4);
    QCOMPARE(m_document->selectedCount(), 4);
    // A right-button drag pans; the view never leaves the grid.
    const QRectF before = m_preview->view();
    QTest::mousePress(m_preview, Qt::RightButton, {}, at);
    const QPoint to = at + QPoint(40, 40);
    QMouseEvent move(QEvent::MouseMove, to, m_preview->mapToGlobal(to), Qt::NoButton, Qt::RightButton, Qt::NoModifier);
    QCoreApplication::sendEvent(m_preview, &move);
    QTest::mouseRelease(m_preview, Qt::RightButton, {}, to);
    QVERIFY(m_preview->view().x() < before.x() || m_preview->view().x() == 0.0);
    QVERIFY(m_preview->view().x() >= 0.0 && m_preview->view().y() >= 0.0);
    QCOMPARE(m_document->selectedCount(), 4); // panning does not select
    // Home shows everything again.
    QTest::keyClick(m_preview, Qt::Key_Home);
    QCOMPARE(m_preview->view(), QRectF(0, 0, 6, 8));
}

void TestLinkedSelection::slicesOfAnNdTensor()
{
    // A [3, 4, 5] tensor is seen as 4 x 5 slices; the slider chooses the leading index, and
    // hover, selection and the Inspector speak of the slice shown.
    core::DenseTensor<float> cube{{3, 4, 5}, {}};
    for (int i = 0; i < 60; ++i)
        cube.values.push_back(static_cast<float>(i));
    m_document->setTensor(QStringLiteral("cube"), core::Tensor(core::Storage{cube}), 3);
    ui::SliceBar bar(m_document);
    QVERIFY(bar.slider(0) != nullptr);
    QCOMPARE(bar.slider(0)->maximum(), 2);
    QCOMPARE(m_preview->image().size(), QSize(5, 4));
    QCOMPARE(QColor(m_preview->image().pixel(0, 0)), ui::divergingColour(0.0, 1.0));

    bar.slider(0)->setValue(2);
    QCOMPARE(m_document->slice(), std::vector<std::int64_t>{2});
    QCOMPARE(m_document->gridOffset(), 40);
    // Slice 2 holds 40 .. 59: its first element is not white any more, and every slice is
    // coloured on the whole tensor's scale (a colour means one value in every slice).
    QVERIFY(QColor(m_preview->image().pixel(0, 0)) != ui::divergingColour(0.0, 1.0));
    const double scale = ui::colourScaleOf(m_document->values(), nullptr).high;
    QCOMPARE(QColor(m_preview->image().pixel(0, 0)), ui::divergingColour(40.0, scale));
    bar.slider(0)->setValue(1);
    QCOMPARE(QColor(m_preview->image().pixel(0, 0)), ui::divergingColour(20.0, scale));
    bar.slider(0)->setValue(2);

    QTest::mouseMove(m_preview, m_preview->positionOf(1, 3));
    QCOMPARE(m_document->hover().value(), 40 + 1 * 5 + 3);
    QVERIFY2(m_inspector->elementText().startsWith(QStringLiteral("[2, 1, 3] = 48")), qPrintable(m_inspector->elementText()));

    drag(m_preview, m_preview->positionOf(0, 0), m_preview->positionOf(1, 1));
    QCOMPARE(m_document->selectedCount(), 4);
    QCOMPARE(m_document->selected()[40], std::uint8_t{1});
    QCOMPARE(m_document->selected()[0], std::uint8_t{0});
    QVERIFY2(m_inspector->selectionText().startsWith(QStringLiteral("4 elements: sum %1").arg(40 + 41 + 45 + 46)),
             qPrintable(m_inspector->selectionText()));
    // Another slice: a rectangle belongs to the slice it was drawn on.
    bar.slider(0)->setValue(0);
    QCOMPARE(m_document->selectedCount(), 0);
}

std::unique_ptr<ui::MatrixView> TestLinkedSelection::matrixView(const core::DenseTensor<double> &values, ui::CellLink link)
{
    auto view = std::make_unique<ui::MatrixView>(m_document);
    view->resize(400, 400);
    view->show();
    view->showMatrix(QStringLiteral("matrix"), values, link);
    return view;
}

namespace {

int clearPixels(const QImage &wash)
{
    int clear = 0;
    for (int r = 0; r < wash.height(); ++r)
        for (int c = 0; c < wash.width(); ++c)
            clear += qAlpha(wash.pixel(c, r)) == 0;
    return clear;
}

core::DenseTensor<double> filled(std::int64_t rows, std::int64_t cols)
{
    core::DenseTensor<double> m{{rows, cols}, {}};
    for (std::int64_t i = 0; i < rows * cols; ++i)
        m.values.push_back(static_cast<double>(i % 7) - 3.0);
    return m;
}

} // namespace

void TestLinkedSelection::matrixCellsShareTheSelection()
{
    // A parameter view of the tensor shown ([8 x 6], as the optimizer's): both ways.
    const auto view = matrixView(filled(8, 6), ui::CellLink::Elements);
    QVERIFY(QTest::qWaitForWindowExposed(view.get()));
    QVERIFY(view->link() == ui::CellLink::Elements);
    drag(m_preview, m_preview->positionOf(2, 1), m_preview->positionOf(4, 3));
    QCOMPARE(clearPixels(view->selectionWash()), 9);

    QSignalSpy changed(m_document, &ui::TensorDocument::selectionChanged);
    drag(view.get(), view->positionOf(0, 4), view->positionOf(1, 5));
    QVERIFY(changed.count() >= 1);
    QCOMPARE(m_document->selection(), ui::ElementSelection::rectangle(0, 1, 4, 5));
    QCOMPARE(m_document->selectedCount(), 4);
    QCOMPARE(unwashedPixels(), 4);
    QCOMPARE(histogramSelectedCount(), 4);
    QCOMPARE(clearPixels(view->selectionWash()), 4);

    hover(view.get(), view->positionOf(3, 2));
    QCOMPARE(m_document->hover().value(), 3 * 6 + 2);
    QVERIFY2(m_inspector->elementText().startsWith(QStringLiteral("[3, 2]")), qPrintable(m_inspector->elementText()));
}

void TestLinkedSelection::stalenessRowsShareTheSelection()
{
    const auto view = matrixView(filled(8, 1), ui::CellLink::Rows);
    QVERIFY(QTest::qWaitForWindowExposed(view.get()));
    QVERIFY(view->link() == ui::CellLink::Rows);
    // One element of row 3 selected on the heatmap marks row 3.
    drag(m_preview, m_preview->positionOf(3, 2), m_preview->positionOf(3, 2));
    QCOMPARE(clearPixels(view->selectionWash()), 1);
    QCOMPARE(qAlpha(view->selectionWash().pixel(0, 3)), 0);
    // Rows dragged on the staleness view are whole rows of the tensor.
    drag(view.get(), view->positionOf(5, 0), view->positionOf(6, 0));
    QCOMPARE(m_document->selection(), ui::ElementSelection::rectangle(5, 6, 0, 5));
    QCOMPARE(m_document->selectedCount(), 12);
    QCOMPARE(unwashedPixels(), 12);
}

void TestLinkedSelection::jacobianRowsAreTheInputsElements()
{
    // A Jacobian of the shown [8 x 6] input: 48 rows (its elements), 3 output columns.
    const auto view = matrixView(filled(48, 3), ui::CellLink::ElementRows);
    QVERIFY(QTest::qWaitForWindowExposed(view.get()));
    QVERIFY(view->link() == ui::CellLink::ElementRows);
    drag(view.get(), view->positionOf(10, 1), view->positionOf(13, 0));
    QCOMPARE(m_document->selection(), ui::ElementSelection::flatRange(10, 13));
    QCOMPARE(m_document->selectedCount(), 4);
    QCOMPARE(unwashedPixels(), 4); // [1, 4], [1, 5], [2, 0], [2, 1] on the heatmap
    QCOMPARE(histogramSelectedCount(), 4);
    hover(view.get(), view->positionOf(7, 2));
    QCOMPARE(m_document->hover().value(), 7);
    QVERIFY2(m_inspector->elementText().startsWith(QStringLiteral("[1, 1]")), qPrintable(m_inspector->elementText()));
    // A rectangle drawn on the heatmap marks the Jacobian rows of its elements.
    drag(m_preview, m_preview->positionOf(0, 0), m_preview->positionOf(1, 0));
    QCOMPARE(clearPixels(view->selectionWash()), 2);
    QCOMPARE(qAlpha(view->selectionWash().pixel(0, 6)), 0);
}

void TestLinkedSelection::matrixOfAnotherShapeIsNotLinked()
{
    const auto view = matrixView(filled(5, 5), ui::CellLink::Elements);
    QVERIFY(view->link() == ui::CellLink::None);
    drag(m_preview, m_preview->positionOf(2, 1), m_preview->positionOf(4, 3));
    QVERIFY(view->selectionWash().isNull());
    m_document->setHover(std::nullopt);
    hover(view.get(), view->positionOf(1, 1));
    QVERIFY(!m_document->hover().has_value());
}

// Selecting another tensor drops the selection, and the histogram draws none of it: a
// stale purple line stayed at the new range's left edge.
void TestLinkedSelection::aSelectionDoesNotOutliveItsTensor()
{
    m_document->setSelection(ui::ElementSelection::rectangle(1, 1, 4, 3));
    QVERIFY(histogramSelectedCount() > 0);
    core::DenseTensor<float> other{{4, 4}, {}};
    for (int i = 0; i < 16; ++i)
        other.values.push_back(-5.0f + 0.6f * static_cast<float>(i));
    m_document->setTensor(QStringLiteral("other"), core::Tensor(core::Storage{other}), 4);
    QVERIFY(m_histogram->selectedPoints().isEmpty());
    const QImage drawn = m_histogram->grab().toImage();
    const QColor outline(81, 45, 168);
    int outlined = 0;
    for (int y = 0; y < drawn.height(); ++y)
        for (int x = 0; x < drawn.width(); ++x)
            outlined += QColor(drawn.pixel(x, y)) == outline;
    QCOMPARE(outlined, 0);
}

void TestLinkedSelection::heatmapShowsWhenItHasTheKeys()
{
    // A keyboard user sees where the keys go: with the focus, the heatmap's frame is drawn in
    // the highlight colour (it looked the same with and without).
    const QRgb highlight = m_preview->palette().color(QPalette::Highlight).rgb();
    const auto highlighted = [&] {
        const QImage image = m_preview->grab().toImage();
        int count = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                count += image.pixel(x, y) == highlight;
        return count;
    };
    const int unfocused = highlighted();
    m_preview->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_preview));
    m_preview->setFocus();
    QVERIFY(m_preview->hasFocus());
    QVERIFY2(highlighted() > unfocused + 2 * (m_preview->width() / 2), qPrintable(QString::number(highlighted())));
}

QTEST_MAIN(TestLinkedSelection)
#include "tst_linked_selection.moc"
