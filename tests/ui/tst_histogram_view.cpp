// The histogram's threshold drag goes through the document: it changes the threshold and the
// preview's pruned pixels, one drag is one undo step, undo/redo round-trip, double click
// clears; the preview and the histogram are linked only by the document.
#include "ui/document/tensor_document.h"
#include "ui/views/heatmap_image.h"
#include "ui/views/histogram_view.h"
#include "ui/views/tensor_preview.h"

#include <QChart>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

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

QTEST_MAIN(TestHistogramView)
#include "tst_histogram_view.moc"
