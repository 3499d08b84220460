// Reading values off the heatmaps as in a data viewer: colour maps (diverging, viridis,
// cividis) and ranges (robust, full, by hand) with a legend that follows them; axes labelled
// with the tensor's indices (a window of rows from its first row); tooltips naming an element,
// its value and its state; the context menu; and one scale per element while it is shown.
#include "../core/test_tensors.h"
#include "ui/document/tensor_document.h"
#include "ui/views/colour_map_tables.h"
#include "ui/views/heatmap_axes.h"
#include "ui/views/heatmap_image.h"
#include "ui/views/matrix_view.h"
#include "ui/views/tensor_preview.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <cmath>

namespace core = sparsity::core;
namespace test = sparsity::test;
namespace ui = sparsity::ui;

namespace {

std::vector<double> ramp(std::size_t count)
{
    std::vector<double> values(count);
    for (std::size_t i = 0; i < count; ++i)
        values[i] = static_cast<double>(i);
    return values;
}

QAction *actionNamed(QMenu *menu, const QString &name)
{
    for (auto *action : menu->actions())
        if (action->objectName() == name)
            return action;
    return nullptr;
}

} // namespace

class TestReadingValues : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void mapsAreMatplotlibs();
    void aFewValuesKeepTheirLargest();
    void rangesRobustFullAndManual();
    void tickIndicesAreNiceAndShown();
    void previewFollowsColourSettings();
    void setRangeDialogSaysWhyOkIsDisabled();
    void axesLabelTheWholeTensorsRows();
    void tooltipNamesElementValueAndState();
    void contextMenuCopiesTheValue();
    void oneElementKeepsOneScale();
    void matrixViewTooltipAndSharedScale();

private:
    ui::TensorDocument *m_document = nullptr;
    ui::TensorPreview *m_preview = nullptr;
};

void TestReadingValues::init()
{
    m_document = new ui::TensorDocument;
    m_preview = new ui::TensorPreview(m_document);
    m_preview->resize(500, 400);
}

void TestReadingValues::cleanup()
{
    delete m_preview;
    delete m_document;
}

void TestReadingValues::mapsAreMatplotlibs()
{
    QCOMPARE(ui::mapColour(ui::ColourMap::Viridis, 0.0), QColor(68, 1, 84));
    QCOMPARE(ui::mapColour(ui::ColourMap::Viridis, 1.0), QColor(253, 231, 37));
    QCOMPARE(ui::mapColour(ui::ColourMap::Cividis, 0.0), QColor(ui::kCividis[0].r, ui::kCividis[0].g, ui::kCividis[0].b));
    QCOMPARE(ui::mapColour(ui::ColourMap::Cividis, 1.0), QColor(ui::kCividis[255].r, ui::kCividis[255].g, ui::kCividis[255].b));
    // Sequential maps get lighter with the value (what level-of-detail pooling relies on).
    for (const auto map : {ui::ColourMap::Viridis, ui::ColourMap::Cividis})
        for (int i = 1; i <= 16; ++i)
            QVERIFY(qGray(ui::mapColour(map, i / 16.0).rgb()) > qGray(ui::mapColour(map, (i - 1) / 16.0).rgb()));
    for (const auto &info : ui::kColourMaps)
        QCOMPARE(ui::colourMapFromKey(info.key), std::optional(info.map));
    QVERIFY(!ui::colourMapFromKey("jet"));
}

void TestReadingValues::aFewValuesKeepTheirLargest()
{
    // A 2 x 2 tensor of 1..3: the robust range keeps 3, so 2 and 3 get different colours.
    const core::DenseTensor<double> values{{2, 2}, {1.0, 2.0, 2.5, 3.0}};
    const auto heatmap = ui::renderHeatmap(values, nullptr);
    QCOMPARE(heatmap.scale.high, 3.0);
    QVERIFY(heatmap.image.pixel(1, 0) != heatmap.image.pixel(1, 1));
    QVERIFY(!heatmap.scale.saturatesHigh());
}

void TestReadingValues::rangesRobustFullAndManual()
{
    // 1000 values 0..999 and one outlier: the robust range leaves the outlier out.
    auto values = ramp(1000);
    values.push_back(1e6);
    core::DenseTensor<double> tensor{{1, 1001}, {}};
    tensor.values.assign(values.begin(), values.end());
    const auto robustDiverging = ui::colourScaleOf(tensor, nullptr);
    QCOMPARE(robustDiverging.high, 995.0); // nearest rank: the 996th of 1001 |values|
    QCOMPARE(robustDiverging.low, -995.0);
    QVERIFY(robustDiverging.saturatesHigh());
    const auto robustViridis = ui::colourScaleOf(tensor, nullptr, {ui::ColourMap::Viridis, ui::ColourRange::Robust});
    QCOMPARE(robustViridis.low, 5.0);
    QCOMPARE(robustViridis.high, 995.0);
    QVERIFY(robustViridis.saturatesLow());
    const auto full = ui::colourScaleOf(tensor, nullptr, {ui::ColourMap::Viridis, ui::ColourRange::Full});
    QCOMPARE(full.low, 0.0);
    QCOMPARE(full.high, 1e6);
    QVERIFY(!full.saturatesLow() && !full.saturatesHigh());
    const auto fullDiverging = ui::colourScaleOf(tensor, nullptr, {ui::ColourMap::Diverging, ui::ColourRange::Full});
    QCOMPARE(fullDiverging.low, -1e6); // symmetric: zero stays white
    const auto manual = ui::colourScaleOf(tensor, nullptr, {ui::ColourMap::Cividis, ui::ColourRange::Manual, 10.0, 20.0});
    QCOMPARE(manual.low, 10.0);
    QCOMPARE(manual.high, 20.0);
    QCOMPARE(QColor(ui::colourOf(15.0, manual)), ui::mapColour(ui::ColourMap::Cividis, 0.5));
    QCOMPARE(QColor(ui::colourOf(500.0, manual)), ui::mapColour(ui::ColourMap::Cividis, 1.0)); // saturates
    QCOMPARE(ui::colourOf(std::nan(""), manual), ui::kNaNColour);
}

void TestReadingValues::tickIndicesAreNiceAndShown()
{
    // 1797 rows over 440 pixels, labels at least 30 px apart: every 200th row.
    QCOMPARE(ui::tickIndices(0, 1797, 440, 30), (std::vector<std::int64_t>{0, 200, 400, 600, 800, 1000, 1200, 1400, 1600}));
    // Zoomed to rows 13.0 .. 21.0 over 400 pixels: every row whose centre is shown.
    QCOMPARE(ui::tickIndices(13.0, 8.0, 400, 30), (std::vector<std::int64_t>{13, 14, 15, 16, 17, 18, 19, 20}));
    // 64 columns over 400 px, 40 px apart: every 10th.
    QCOMPARE(ui::tickIndices(0, 64, 400, 40), (std::vector<std::int64_t>{0, 10, 20, 30, 40, 50, 60}));
    QVERIFY(ui::tickIndices(0, 10, 0, 30).empty());
}

void TestReadingValues::setRangeDialogSaysWhyOkIsDisabled()
{
    m_document->setTensor(QStringLiteral("ramp"), test::denseTensor({4, 4}, ramp(16)), 4);
    bool checked = false;
    // The dialog is modal: it is driven from the event loop exec() runs, as a user would.
    QTimer::singleShot(0, this, [&] {
        auto *dialog = qobject_cast<QDialog *>(QApplication::activeModalWidget());
        QVERIFY(dialog);
        auto *low = dialog->findChild<QDoubleSpinBox *>(QStringLiteral("colour.range.low"));
        auto *high = dialog->findChild<QDoubleSpinBox *>(QStringLiteral("colour.range.high"));
        auto *reason = dialog->findChild<QLabel *>(QStringLiteral("colour.range.reason"));
        auto *ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QVERIFY(low && high && reason && ok);
        QVERIFY(ok->isEnabled());
        QVERIFY(reason->isHidden());
        low->setValue(9.0);
        high->setValue(3.0); // the lowest colour above the highest
        QVERIFY(!ok->isEnabled());
        QVERIFY(!reason->isHidden());
        QVERIFY(reason->text().contains(QStringLiteral("below")));
        high->setValue(12.0);
        QVERIFY(ok->isEnabled() && reason->isHidden());
        checked = true;
        ok->click();
    });
    actionNamed(m_preview->colourRangeMenu(), QStringLiteral("action.colour.range.manual"))->trigger();
    QVERIFY(checked);
    QCOMPARE(m_preview->colourSettings().range, ui::ColourRange::Manual);
    QCOMPARE(m_preview->colourSettings().low, 9.0);
    QCOMPARE(m_preview->colourSettings().high, 12.0);
}

void TestReadingValues::previewFollowsColourSettings()
{
    m_document->setTensor(QStringLiteral("ramp"), test::denseTensor({4, 4}, ramp(16)), 4);
    QCOMPARE(m_preview->colourScale().map, ui::ColourMap::Diverging);
    QCOMPARE(QColor(m_preview->image().pixel(0, 0)), QColor(255, 255, 255)); // zero is white
    QSignalSpy changed(m_preview, &ui::TensorPreview::colourSettingsChanged);
    // Chosen from the menu, as a user does.
    auto *viridis = actionNamed(m_preview->colourMapMenu(), QStringLiteral("action.colour.map.viridis"));
    QVERIFY(viridis);
    viridis->trigger();
    QCOMPARE(changed.count(), 1);
    QVERIFY(viridis->isChecked());
    QCOMPARE(m_preview->colourScale().map, ui::ColourMap::Viridis);
    QCOMPARE(m_preview->colourScale().low, 0.0);
    QCOMPARE(m_preview->colourScale().high, 15.0);
    QCOMPARE(QColor(m_preview->image().pixel(0, 0)), QColor(68, 1, 84));
    QCOMPARE(QColor(m_preview->image().pixel(3, 3)), QColor(253, 231, 37));
    actionNamed(m_preview->colourRangeMenu(), QStringLiteral("action.colour.range.full"))->trigger();
    QCOMPARE(m_preview->colourSettings().range, ui::ColourRange::Full);
    m_preview->setColourSettings({ui::ColourMap::Viridis, ui::ColourRange::Manual, 4.0, 8.0});
    QVERIFY(actionNamed(m_preview->colourRangeMenu(), QStringLiteral("action.colour.range.manual"))->isChecked());
    QCOMPARE(QColor(m_preview->image().pixel(0, 0)), QColor(68, 1, 84));                          // 0 below 4: saturated low
    QCOMPARE(QColor(m_preview->image().pixel(2, 1)), ui::mapColour(ui::ColourMap::Viridis, 0.5)); // 6
    QVERIFY(m_preview->colourScale().saturatesLow() && m_preview->colourScale().saturatesHigh());
    // Pruned elements are light on a sequential map (dark would read as its low end).
    m_document->changeThreshold(2.5); // prunes 0, 1 and 2
    QCOMPARE(m_preview->image().pixel(1, 0), ui::kPrunedLightColour);
    QCOMPARE(QColor(m_preview->image().pixel(3, 0)), ui::mapColour(ui::ColourMap::Viridis, 0.0)); // 3: below 4, kept
    m_preview->setColourSettings({});
    QCOMPARE(m_preview->image().pixel(1, 0), ui::kPrunedColour);
    QVERIFY(!m_preview->grab().isNull()); // the legend draws the map with ≥ / ≤
}

void TestReadingValues::axesLabelTheWholeTensorsRows()
{
    // Rows 1000..1099 of a 5000-row table: the row axis counts from 1000.
    m_document->setTensor(QStringLiteral("window"), test::denseTensor({100, 8}, ramp(800)), 5000,
                          ui::TensorSource{QStringLiteral("t.h5"), QStringLiteral("/emb"), 1000});
    const auto rows = m_preview->rowTicks();
    QVERIFY(rows.size() >= 3);
    QCOMPARE(rows.first().index, std::int64_t{1000});
    for (const auto &tick : rows) {
        QVERIFY(tick.index >= 1000 && tick.index < 1100);
        // Each label is at its row's centre.
        QCOMPARE(tick.position, m_preview->positionOf(tick.index - 1000, 0).y());
    }
    const auto cols = m_preview->columnTicks();
    QCOMPARE(cols.size(), 8); // 8 columns across ~400 px: every one
    QCOMPARE(cols.last().index, std::int64_t{7});
    QCOMPARE(cols.last().position, m_preview->positionOf(0, 7).x());
    // A window from an odd row is labelled at round rows of the table, each at its row.
    m_document->setTensor(QStringLiteral("window"), test::denseTensor({100, 8}, ramp(800)), 5000,
                          ui::TensorSource{QStringLiteral("t.h5"), QStringLiteral("/emb"), 1013});
    const auto odd = m_preview->rowTicks();
    QVERIFY(odd.size() >= 3);
    const auto step = odd.at(1).index - odd.at(0).index;
    QVERIFY(step == 10 || step == 20 || step == 50);
    QCOMPARE(odd.first().index, (1013 + step - 1) / step * step);
    for (const auto &tick : odd) {
        QCOMPARE(tick.index % step, std::int64_t{0});
        QCOMPARE(tick.position, m_preview->positionOf(tick.index - 1013, 0).y());
    }

    // Zoomed in, the labels follow the view.
    m_preview->zoomAt(m_preview->positionOf(50, 4), 8.0);
    for (const auto &tick : m_preview->rowTicks())
        QVERIFY(tick.index >= 1013 + static_cast<std::int64_t>(m_preview->view().top()));
}

void TestReadingValues::tooltipNamesElementValueAndState()
{
    core::Mask mask{1, 1, 1, 0};
    m_document->setTensor(QStringLiteral("masked"),
                          core::Tensor(core::Storage{core::DenseTensor<double>{{2, 2}, {0.25, -3.0, 0.5, 7.0}}}, mask), 2);
    QCOMPARE(m_preview->toolTipAt(m_preview->positionOf(0, 1)), QStringLiteral("[0, 1] = -3"));
    QCOMPARE(m_preview->toolTipAt(m_preview->positionOf(1, 1)), QStringLiteral("[1, 1] unspecified"));
    QVERIFY(m_preview->toolTipAt(QPoint(1, 1)).isEmpty()); // outside the image
    m_document->changeThreshold(1.0);
    QVERIFY(m_document->hasPreview());
    QCOMPARE(m_preview->toolTipAt(m_preview->positionOf(0, 0)), QStringLiteral("[0, 0] = 0.25 — pruned by the preview"));
    QCOMPARE(m_preview->toolTipAt(m_preview->positionOf(0, 1)), QStringLiteral("[0, 1] = -3 — kept by the preview"));
}

void TestReadingValues::contextMenuCopiesTheValue()
{
    m_document->setTensor(QStringLiteral("ramp"), test::denseTensor({4, 4}, ramp(16)), 4);
    const auto menu = m_preview->contextMenuAt(m_preview->positionOf(2, 3));
    auto *copy = actionNamed(menu.get(), QStringLiteral("action.preview.copy_value"));
    QVERIFY(copy && copy->isEnabled());
    copy->trigger();
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("11"));
    QVERIFY(menu->actions().contains(m_preview->colourMapMenu()->menuAction()));
    QVERIFY(!actionNamed(menu.get(), QStringLiteral("action.preview.select_none"))->isEnabled());
    const auto outside = m_preview->contextMenuAt(QPoint(1, 1));
    QVERIFY(!actionNamed(outside.get(), QStringLiteral("action.preview.copy_value"))->isEnabled());
}

void TestReadingValues::oneElementKeepsOneScale()
{
    // Scrolling a large table loads other rows of the same element: the colours keep their
    // meaning. Another element gets its own scale.
    const ui::TensorSource first{QStringLiteral("t.h5"), QStringLiteral("/emb"), 0};
    m_document->setTensor(QStringLiteral("t.h5 /emb"), test::denseTensor({2, 2}, {-1, 0, 0, 1}), 10, first);
    QCOMPARE(m_preview->colourScale().high, 1.0);
    m_document->setTensor(QStringLiteral("t.h5 /emb"), test::denseTensor({2, 2}, {-4, 0, 0, 4}), 10,
                          ui::TensorSource{first.filePath, first.elementPath, 2});
    QCOMPARE(m_preview->colourScale().high, 1.0);
    QVERIFY(m_preview->colourScale().saturatesHigh());
    m_document->setTensor(QStringLiteral("t.h5 /W"), test::denseTensor({2, 2}, {-4, 0, 0, 4}), 2,
                          ui::TensorSource{first.filePath, QStringLiteral("/W"), 0});
    QCOMPARE(m_preview->colourScale().high, 4.0);
}

void TestReadingValues::matrixViewTooltipAndSharedScale()
{
    ui::MatrixView view;
    view.resize(300, 240);
    view.showMatrix(QStringLiteral("J"), core::DenseTensor<double>{{2, 3}, {0, 1, 2, 3, 4, 5}});
    QCOMPARE(view.toolTipAt(view.positionOf(1, 2)), QStringLiteral("[1, 2] = 5"));
    QVERIFY(view.toolTipAt(QPoint(0, 0)).isEmpty());
    QCOMPARE(QColor(view.image().pixel(0, 0)), QColor(255, 255, 255));
    QCOMPARE(QColor(view.image().pixel(2, 1)), ui::divergingColour(5.0, 5.0)); // its own range: ±5
    // Views compared side by side share a scale: 5 is then half of ±10.
    const ui::ColourScale shared{-10.0, 10.0, -10.0, 10.0, ui::ColourMap::Diverging};
    view.showMatrix(QStringLiteral("J"), core::DenseTensor<double>{{2, 3}, {0, 1, 2, 3, 4, 5}}, ui::CellLink::None, &shared);
    QCOMPARE(QColor(view.image().pixel(2, 1)), ui::divergingColour(5.0, 10.0));
    QCOMPARE(view.title(), QStringLiteral("J"));
    // A Jacobian's cells named: row 1 is x's element [0, 1] (x is 1 x 2), column 2 is out[1, 0]
    // (out is 3 x 1), not the flat [1, 2].
    view.setCellNames({QStringLiteral("x"), {1, 2}, QStringLiteral("out"), {3, 1}});
    QCOMPARE(view.toolTipAt(view.positionOf(1, 2)), QStringLiteral("∂out[2, 0] / ∂x[0, 1] = 5"));
    view.setCellNames({QStringLiteral("x"), {2}, QStringLiteral("out"), {3}});
    QCOMPARE(view.toolTipAt(view.positionOf(1, 0)), QStringLiteral("∂out[0] / ∂x[1] = 3"));
    view.setCellNames({QStringLiteral("x"), {4}, QStringLiteral("out"), {3}}); // does not fit: flat indices
    QCOMPARE(view.toolTipAt(view.positionOf(1, 2)), QStringLiteral("[1, 2] = 5"));
    view.showMatrix(QStringLiteral("J"), core::DenseTensor<double>{{2, 1}, {7, 8}});
    QCOMPARE(view.toolTipAt(view.positionOf(1, 0)), QStringLiteral("[1, 0] = 8")); // names go with the matrix
    view.setCellNames({QStringLiteral("x"), {2}, QStringLiteral("out"), {}});
    QCOMPARE(view.toolTipAt(view.positionOf(1, 0)), QStringLiteral("∂out / ∂x[1] = 8")); // a 0-d output
}

QTEST_MAIN(TestReadingValues)
#include "tst_reading_values.moc"
