// The histogram's threshold drag goes through the document: it changes the threshold and the
// preview's pruned pixels, one drag is one undo step, undo/redo round-trip, double click
// clears; the preview and the histogram are linked only by the document. The count axis has
// ticks at whole decades; the chart takes its colours from the palette, dark ones included.
#include "ui/document/tensor_document.h"
#include "ui/views/chart_palette.h"
#include "ui/views/heatmap_image.h"
#include "ui/views/histogram_view.h"
#include "ui/views/log_count_axis.h"
#include "ui/views/tensor_preview.h"

#include <QAreaSeries>
#include <QChart>
#include <QLineSeries>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>
#include <cmath>

using namespace sparsity;

class TestHistogramView : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void dragSetsThresholdAndPreview();
    void oneDragIsOneUndoStep();
    void doubleClickClears();
    void newTensorKeepsHistoryAndRecipe();
    void noTensorNoThresholdLines();
    void countAxisTicksAtDecades();
    void darkPaletteDarkensTheChart();
    void seriesContrastOnBothPalettes();
    void rangeWiderThanADouble();

private:
    QPoint positionOf(double value) const;
    int prunedPixels() const;

    ui::TensorDocument *m_document = nullptr;
    ui::HistogramView *m_histogram = nullptr;
    ui::TensorPreview *m_preview = nullptr;
};

namespace {

// 20 x 10 values evenly spread over [-1, 1).
core::Tensor rampTensor()
{
    core::DenseTensor<float> t{{20, 10}, {}};
    for (int i = 0; i < 200; ++i)
        t.values.push_back(-1.0f + static_cast<float>(i) / 100.0f);
    return core::Tensor(core::Storage{t});
}

} // namespace

void TestHistogramView::init()
{
    m_document = new ui::TensorDocument;
    m_histogram = new ui::HistogramView(m_document);
    m_preview = new ui::TensorPreview(m_document);
    m_document->setTensor(QStringLiteral("ramp"), rampTensor(), 20);
    m_histogram->resize(480, 320);
    m_histogram->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_histogram));
}

void TestHistogramView::cleanup()
{
    delete m_histogram;
    delete m_preview;
    delete m_document;
}

QPoint TestHistogramView::positionOf(double value) const
{
    const QPointF inChart = m_histogram->chart()->mapToPosition(QPointF(value, 0.5));
    return m_histogram->mapFromScene(m_histogram->chart()->mapToScene(inChart));
}

int TestHistogramView::prunedPixels() const
{
    const QImage &image = m_preview->image();
    int count = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            count += image.pixel(x, y) == ui::kPrunedColour;
    return count;
}

void TestHistogramView::dragSetsThresholdAndPreview()
{
    QSignalSpy changed(m_document, &ui::TensorDocument::sparsifierChanged);
    QCOMPARE(prunedPixels(), 0);
    QTest::mousePress(m_histogram->viewport(), Qt::LeftButton, {}, positionOf(0.5));
    QTest::mouseRelease(m_histogram->viewport(), Qt::LeftButton, {}, positionOf(0.5));
    QVERIFY(m_document->threshold().has_value());
    QVERIFY2(std::abs(*m_document->threshold() - 0.5) < 0.02, qPrintable(QString::number(*m_document->threshold())));
    QCOMPARE(changed.count(), 1);
    // |x| < T for the ramp: about half of the 200 values, and exactly the preview's dark pixels.
    int expected = 0;
    for (double v : m_document->values().values)
        expected += std::abs(v) < *m_document->threshold();
    QCOMPARE(prunedPixels(), expected);
    QVERIFY(expected > 80 && expected < 120);
    QVERIFY(m_histogram->titleText().contains(QStringLiteral("% pruned")));
}

void TestHistogramView::noTensorNoThresholdLines()
{
    // The recipe outlives the tensor shown; its ±T lines are drawn only over values.
    m_document->changeThreshold(0.5);
    QCOMPARE(m_histogram->thresholdPoints().size(), 4);
    m_document->clear();
    QVERIFY(m_document->threshold().has_value());
    QVERIFY(m_histogram->thresholdPoints().isEmpty());
    m_document->setTensor(QStringLiteral("ramp"), rampTensor(), 20);
    QCOMPARE(m_histogram->thresholdPoints().size(), 4);
}

void TestHistogramView::oneDragIsOneUndoStep()
{
    auto *viewport = m_histogram->viewport();
    QTest::mousePress(viewport, Qt::LeftButton, {}, positionOf(0.2));
    for (double v : {0.3, 0.4, 0.6}) {
        QMouseEvent move(QEvent::MouseMove, positionOf(v), m_histogram->viewport()->mapToGlobal(positionOf(v)), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(viewport, &move);
    }
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, positionOf(0.6));
    QVERIFY(std::abs(*m_document->threshold() - 0.6) < 0.02);
    QCOMPARE(m_document->undoStack()->count(), 1);
    const int draggedPixels = prunedPixels();

    m_document->undoStack()->undo();
    QVERIFY(!m_document->threshold().has_value());
    QCOMPARE(prunedPixels(), 0);
    m_document->undoStack()->redo();
    QVERIFY(std::abs(*m_document->threshold() - 0.6) < 0.02);
    QCOMPARE(prunedPixels(), draggedPixels);

    // A second drag is a second step.
    QTest::mousePress(viewport, Qt::LeftButton, {}, positionOf(-0.1));
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, positionOf(-0.1));
    QCOMPARE(m_document->undoStack()->count(), 2);
    QVERIFY(std::abs(*m_document->threshold() - 0.1) < 0.02); // |value|: the lines sit at ±T
}

void TestHistogramView::doubleClickClears()
{
    m_document->changeThreshold(0.5);
    QTest::mouseDClick(m_histogram->viewport(), Qt::LeftButton, {}, positionOf(0.0));
    QVERIFY(!m_document->threshold().has_value());
    QCOMPARE(prunedPixels(), 0);
}

void TestHistogramView::newTensorKeepsHistoryAndRecipe()
{
    // Choosing another tensor is navigation: the history and the recipe stay, and the recipe
    // is previewed on the new tensor.
    m_document->changeThreshold(0.5);
    QCOMPARE(m_document->undoStack()->count(), 1);
    m_document->setTensor(QStringLiteral("again"), rampTensor(), 20);
    QCOMPARE(m_document->undoStack()->count(), 1);
    QCOMPARE(m_document->threshold().value(), 0.5);
    QVERIFY(prunedPixels() > 0);
}

void TestHistogramView::countAxisTicksAtDecades()
{
    // The ramp puts at most 4 values in a bin: the scale still reaches 10.
    auto *axis = m_histogram->countAxis();
    QCOMPARE(axis->titleText(), QStringLiteral("count (log scale)"));
    QCOMPARE(axis->categoriesLabels(), (QStringList{"0", "1", "10"}));
    QCOMPARE(axis->max(), std::log10(11.0));
    // 5000 zeros and one 1: the tallest bin holds 5000, so the ticks run to 10k.
    core::DenseTensor<float> spike{{5001}, {}};
    spike.values.assign(5000, 0.0f);
    spike.values.push_back(1.0f);
    m_document->setTensor(QStringLiteral("spike"), core::Tensor(core::Storage{spike}), 5001);
    QCOMPARE(axis->categoriesLabels(), (QStringList{"0", "1", "10", "100", "1k", "10k"}));
    // Each label sits where that count is drawn: log10(count + 1).
    QCOMPARE(axis->endValue(QStringLiteral("1k")), std::log10(1001.0));
    QCOMPARE(axis->max(), std::log10(10001.0));
    auto *area = qobject_cast<QAreaSeries *>(m_histogram->chart()->series().first());
    double top = 0.0;
    for (const auto &point : area->upperSeries()->points())
        top = std::max(top, point.y());
    QCOMPARE(top, std::log10(5001.0));
    // With the room of the dock at 1280 x 720 (seven labels), past 100k every other decade is
    // labelled (eight do not fit, and Qt Charts elides them all to "…"), counted down from the top.
    axis->setLabelRoom(7);
    axis->setMaxCount(100'000);
    QCOMPARE(axis->categoriesLabels(), (QStringList{"0", "1", "10", "100", "1k", "10k", "100k"}));
    axis->setMaxCount(100'001);
    QCOMPARE(axis->categoriesLabels(), (QStringList{"0", "1", "100", "10k", "1M"}));
    QCOMPARE(axis->max(), std::log10(1'000'001.0));
    axis->setMaxCount(5e6);
    QCOMPARE(axis->categoriesLabels(), (QStringList{"0", "10", "1k", "100k", "10M"}));
    QCOMPARE(ui::LogCountAxis::countLabel(1'000'000), QStringLiteral("1M"));
    QCOMPARE(ui::LogCountAxis::countLabel(100'000), QStringLiteral("100k"));
    // Less room, fewer labels, always 0, 1 or a decade above, and the top.
    axis->setMaxCount(100'000);
    axis->setLabelRoom(4);
    QCOMPARE(axis->categoriesLabels(), (QStringList{"0", "10", "1k", "100k"}));
    axis->setLabelRoom(3);
    QCOMPARE(axis->categoriesLabels(), (QStringList{"0", "100", "100k"}));
    axis->setLabelRoom(1); // three at least
    QCOMPARE(axis->categoriesLabels(), (QStringList{"0", "100", "100k"}));
    // A short histogram (its dock's splitter dragged up) sets the room from its height, and
    // shortens the axis title: every label and the title were drawn as "…".
    m_histogram->resize(480, 130);
    QCoreApplication::processEvents();
    QVERIFY2(axis->categoriesLabels().size() <= 4, qPrintable(axis->categoriesLabels().join(' ')));
    QCOMPARE(axis->titleText(), QStringLiteral("count"));
    m_histogram->resize(480, 400);
    QCoreApplication::processEvents();
    QCOMPARE(axis->categoriesLabels().size(), 7);
    QCOMPARE(axis->titleText(), QStringLiteral("count (log scale)"));
}

namespace {

QPalette darkPalette()
{
    QPalette palette;
    palette.setColor(QPalette::Window, QColor(45, 45, 45));
    palette.setColor(QPalette::Base, QColor(30, 30, 30));
    palette.setColor(QPalette::Text, QColor(230, 230, 230));
    palette.setColor(QPalette::WindowText, QColor(230, 230, 230));
    return palette;
}

QPalette lightPalette()
{
    QPalette palette;
    palette.setColor(QPalette::Window, QColor(239, 239, 239));
    palette.setColor(QPalette::Base, Qt::white);
    palette.setColor(QPalette::Text, Qt::black);
    palette.setColor(QPalette::WindowText, Qt::black);
    return palette;
}

// WCAG 2 contrast ratio (1 to 21) of two opaque colours.
double contrast(const QColor &a, const QColor &b)
{
    const auto luminance = [](const QColor &c) {
        const auto linear = [](float channel) {
            const double v = channel;
            return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
        };
        return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
    };
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace

void TestHistogramView::darkPaletteDarkensTheChart()
{
    auto *chart = m_histogram->chart();
    m_histogram->setPalette(darkPalette());
    QVERIFY2(chart->backgroundBrush().color().lightnessF() < 0.25f, qPrintable(chart->backgroundBrush().color().name()));
    QCOMPARE(chart->titleBrush().color(), QColor(230, 230, 230));
    for (auto *axis : chart->axes())
        QCOMPARE(axis->labelsBrush().color(), QColor(230, 230, 230));
    // The ±T lines take the dark palette's threshold colour.
    m_document->changeThreshold(0.5);
    const auto series = chart->series();
    auto *lower = qobject_cast<QLineSeries *>(series.at(2));
    QVERIFY(lower);
    QCOMPARE(lower->pen().color(), ui::ChartColours::forPalette(darkPalette()).threshold);
    // Back to light: coloured again.
    m_histogram->setPalette(lightPalette());
    QCOMPARE(chart->backgroundBrush().color(), QColor(Qt::white));
    QCOMPARE(lower->pen().color(), ui::ChartColours::forPalette(lightPalette()).threshold);
}

void TestHistogramView::seriesContrastOnBothPalettes()
{
    // At least 3:1 against the chart background (WCAG's figure for graphics), on either palette:
    // the ±T lines (where pruning stops) and the distribution's body and outline.
    for (const auto &palette : {lightPalette(), darkPalette()}) {
        const auto colours = ui::ChartColours::forPalette(palette);
        const QString which = ui::isDarkPalette(palette) ? QStringLiteral("dark") : QStringLiteral("light");
        for (const auto &[name, colour] :
             {std::pair{"threshold", colours.threshold}, std::pair{"distribution", colours.distribution},
              std::pair{"outline", colours.distributionOutline}, std::pair{"selection outline", colours.selectionOutline}})
            QVERIFY2(contrast(colour, colours.background) >= 3.0,
                     qPrintable(QStringLiteral("%1 on %2: %3").arg(name, which).arg(contrast(colour, colours.background))));
        QVERIFY2(contrast(colours.text, colours.background) >= 4.5, qPrintable(which));
    }
}

QTEST_MAIN(TestHistogramView)
// float64 values across +-DBL_MAX: the range's width overflows a double, so the view bins at a
// scale as the sparsify report does (core::HistogramBins). Every point is finite, and the values
// lie in the bins counted here by hand (64 bins, each DBL_MAX / 32 wide: 0 opens bin 32). A
// constant beyond 2^53, where +-0.5 is lost, gets a bin of one ulp either side.
void TestHistogramView::rangeWiderThanADouble()
{
    constexpr double kMax = std::numeric_limits<double>::max();
    const auto binsHeld = [this] {
        auto *area = qobject_cast<QAreaSeries *>(m_histogram->chart()->series().first());
        std::vector<int> held;
        const auto points = area->upperSeries()->points();
        for (qsizetype k = 0; k < points.size(); ++k) {
            if (!std::isfinite(points[k].x()) || !std::isfinite(points[k].y()))
                return std::vector<int>{-1};
            if (k % 2 == 0 && points[k].y() > 0.0)
                held.push_back(static_cast<int>(k / 2));
        }
        return held;
    };
    m_document->setTensor(QStringLiteral("wide"),
                          core::Tensor(core::Storage{core::DenseTensor<double>{{5}, {-kMax, -1e300, 0.0, 1e300, kMax}}}), 5);
    QCOMPARE(binsHeld(), (std::vector<int>{0, 31, 32, 63}));
    m_document->setTensor(QStringLiteral("constant"),
                          core::Tensor(core::Storage{core::DenseTensor<double>{{4}, {1e300, 1e300, 1e300, 1e300}}}), 4);
    QCOMPARE(binsHeld().size(), std::size_t{1});
}

#include "tst_histogram_view.moc"
