// The heatmap and the Inspector on the tensors that have little or nothing to draw: an empty
// (0 x 5) one, a 0-d one, an all-NaN one and a 1 x 1 one; non-finite values with their own
// colours and legend entries; unspecified elements read "unspecified", never "Value 0".
#include "../core/test_tensors.h"
#include "core/tensor/tensor_ops.h"
#include "ui/document/optimizer_run.h"
#include "ui/document/tensor_document.h"
#include "ui/panels/inspector_panel.h"
#include "ui/views/heatmap_image.h"
#include "ui/views/tensor_preview.h"

#include <QTest>
#include <cmath>
#include <limits>

namespace core = sparsity::core;
namespace test = sparsity::test;
namespace ui = sparsity::ui;

class TestTensorStates : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void emptyTensorSaysSo();
    void scalarSaysItsValue();
    void allNaNSaysSo();
    void oneByOneIsDrawn();
    void nonFiniteValuesHaveTheirOwnColours();
    void unspecifiedReadsUnspecified();
    void maskedCooShowsItsSpecifiedSums();
    void optimizerStatesBelongToTheirTensor();

private:
    ui::TensorDocument *m_document = nullptr;
    ui::TensorPreview *m_preview = nullptr;
    ui::InspectorPanel *m_inspector = nullptr;
};

void TestTensorStates::init()
{
    m_document = new ui::TensorDocument;
    m_preview = new ui::TensorPreview(m_document);
    m_inspector = new ui::InspectorPanel(m_document);
    m_preview->resize(400, 300);
}

void TestTensorStates::cleanup()
{
    delete m_inspector;
    delete m_preview;
    delete m_document;
}

void TestTensorStates::emptyTensorSaysSo()
{
    m_document->setTensor(QStringLiteral("empty"), test::denseTensor({0, 5}, {}), 0);
    QVERIFY(m_preview->image().isNull());
    QVERIFY2(m_preview->message().contains(QStringLiteral("[0, 5]")), qPrintable(m_preview->message()));
    QVERIFY(m_preview->message().contains(QStringLiteral("no elements")));
    QVERIFY(!m_preview->grab().isNull());
}

void TestTensorStates::scalarSaysItsValue()
{
    m_document->setTensor(QStringLiteral("scalar"), test::denseTensor({}, {2.5}), 1);
    QVERIFY(m_preview->image().isNull());
    QVERIFY2(m_preview->message().contains(QStringLiteral("0-d")) && m_preview->message().contains(QStringLiteral("2.5")),
             qPrintable(m_preview->message()));
}

void TestTensorStates::allNaNSaysSo()
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    m_document->setTensor(QStringLiteral("nan"), test::denseTensor({2, 3}, std::vector<double>(6, nan)), 2);
    QVERIFY(m_preview->image().isNull());
    QVERIFY2(m_preview->message().contains(QStringLiteral("finite")), qPrintable(m_preview->message()));
    // Another tensor afterwards is drawn again.
    m_document->setTensor(QStringLiteral("ok"), test::denseTensor({2, 3}, {1, 2, 3, 4, 5, 6}), 2);
    QCOMPARE(m_preview->image().size(), QSize(3, 2));
    QVERIFY(m_preview->message().isEmpty());
}

void TestTensorStates::oneByOneIsDrawn()
{
    m_document->setTensor(QStringLiteral("one"), test::denseTensor({1, 1}, {-0.75}), 1);
    QCOMPARE(m_preview->image().size(), QSize(1, 1));
    QCOMPARE(m_preview->image().pixel(0, 0), ui::divergingColour(-0.75, 0.75).rgb());
    m_document->setHover(0);
    QVERIFY2(m_inspector->elementText().contains(QStringLiteral("-0.75")), qPrintable(m_inspector->elementText()));
    m_document->setSelection(ui::ElementSelection::rectangle(0, 0, 0, 0));
    QVERIFY2(m_inspector->selectionText().startsWith(QStringLiteral("1 element:")), qPrintable(m_inspector->selectionText()));
}

void TestTensorStates::nonFiniteValuesHaveTheirOwnColours()
{
    const double inf = std::numeric_limits<double>::infinity();
    const auto heatmap = ui::renderHeatmap(core::DenseTensor<double>{{1, 4}, {std::nan(""), inf, -inf, 1.0}}, nullptr);
    QCOMPARE(heatmap.image.pixel(0, 0), ui::kNaNColour);
    QCOMPARE(heatmap.image.pixel(1, 0), ui::kPosInfColour);
    QCOMPARE(heatmap.image.pixel(2, 0), ui::kNegInfColour);
    QVERIFY(heatmap.hasNaN && heatmap.hasPosInf && heatmap.hasNegInf);
    QCOMPARE(heatmap.scale.high, 1.0); // the finite values set the scale
    const auto finite = ui::renderHeatmap(core::DenseTensor<double>{{1, 2}, {1.0, -1.0}}, nullptr);
    QVERIFY(!finite.hasNaN && !finite.hasPosInf && !finite.hasNegInf);
}

void TestTensorStates::unspecifiedReadsUnspecified()
{
    core::Mask mask{1, 0, 1, 1};
    m_document->setTensor(QStringLiteral("masked"),
                          core::Tensor(core::Storage{core::DenseTensor<double>{{2, 2}, {1, 0, 3, 4}}}, mask), 2);
    m_document->setHover(1);
    QVERIFY2(m_inspector->elementText().contains(QStringLiteral("unspecified")), qPrintable(m_inspector->elementText()));
    QVERIFY(!m_inspector->elementText().contains(QStringLiteral("= 0")));
    m_document->setHover(2);
    QVERIFY(m_inspector->elementText().contains(QStringLiteral("3")));
    // Selecting the unspecified element alone: one element, not specified (not "1 elements").
    m_document->setSelection(ui::ElementSelection::rectangle(0, 0, 1, 1));
    QCOMPARE(m_inspector->selectionText(), QStringLiteral("1 element, not specified"));
    m_document->setSelection(ui::ElementSelection::rectangle(0, 1, 1, 1));
    QVERIFY2(m_inspector->selectionText().startsWith(QStringLiteral("1 element:")), qPrintable(m_inspector->selectionText()));
}

// A masked coo with duplicates, of float and of double values: the document holds the values
// and specified elements densifying it gives (one conversion for both, not one each), a
// duplicate's specified values summed and its unspecified one left out.
void TestTensorStates::maskedCooShowsItsSpecifiedSums()
{
    const auto check = [this](const core::Tensor &tensor) {
        m_document->setTensor(QStringLiteral("masked coo"), tensor, 3);
        const auto expected = core::toDenseDouble(tensor);
        QCOMPARE(m_document->values().shape, expected.shape);
        QCOMPARE(m_document->values().values, expected.values);
        QVERIFY(m_document->specified());
        QCOMPARE(*m_document->specified(), core::specifiedMaskDense(tensor));
        // [0, 1] stored three times, specified twice: 2 + 0.5; [1, 2] stored, unspecified.
        QCOMPARE(m_document->values().values[1], 2.5);
        QCOMPARE((*m_document->specified())[1], std::uint8_t{1});
        QCOMPARE((*m_document->specified())[5], std::uint8_t{0});
        QCOMPARE((*m_document->specified())[0], std::uint8_t{0}); // not stored
        m_document->setHover(5);
        QVERIFY2(m_inspector->elementText().contains(QStringLiteral("unspecified")), qPrintable(m_inspector->elementText()));
        m_document->setHover(1);
        QVERIFY2(m_inspector->elementText().contains(QStringLiteral("2.5")), qPrintable(m_inspector->elementText()));
    };
    const core::Mask mask{1, 0, 0, 1, 1};
    check(core::Tensor(core::Storage{core::CooTensor<float>{
                           {2, 3}, 2, 5, {0, 0, 1, 0, 1, 1, 1, 2, 1, 0}, {2.0f, 9.0f, 7.0f, 0.5f, 4.0f}, false}},
                       mask));
    check(core::Tensor(
        core::Storage{core::CooTensor<double>{{2, 3}, 2, 5, {0, 0, 1, 0, 1, 1, 1, 2, 1, 0}, {2.0, 9.0, 7.0, 0.5, 4.0}, false}},
        mask));
}

// The Inspector's Optimizer row shows a run's states only on the tensor the run stepped: on
// another tensor of the same size it once showed the run's values as if they were its own.
void TestTensorStates::optimizerStatesBelongToTheirTensor()
{
    const QString file = QStringLiteral("/data/sample.h5");
    m_document->setTensor(QStringLiteral("emb"), test::denseTensor({2, 2}, {1, 2, 3, 4}), 2, {file, QStringLiteral("/emb")});
    auto run = std::make_shared<ui::OptimizerRun>();
    run->param = {file, QStringLiteral("/emb")};
    run->rows = {0, 2}; // all of them
    run->totalRows = 2;
    core::SemanticsResult dense;
    dense.tensors.push_back({"param", core::DenseTensor<double>{{2, 2}, {0.5, 1.5, 2.5, 3.5}}});
    run->comparison.results.push_back(std::move(dense));
    m_document->changeOptimizerRun(run);
    m_document->setHover(3);
    QVERIFY2(m_inspector->statesText().contains(QStringLiteral("param 3.5")), qPrintable(m_inspector->statesText()));
    // Another tensor of the same shape, in the same file and in another: no run there.
    m_document->setTensor(QStringLiteral("pixels"), test::denseTensor({2, 2}, {9, 8, 7, 6}), 2,
                          {file, QStringLiteral("/pixels")});
    m_document->setHover(3);
    QCOMPARE(m_inspector->statesText(), QStringLiteral("no run on this tensor"));
    m_document->setTensor(QStringLiteral("emb"), test::denseTensor({2, 2}, {1, 2, 3, 4}), 2,
                          {QStringLiteral("/data/other.h5"), QStringLiteral("/emb")});
    m_document->setHover(3);
    QCOMPARE(m_inspector->statesText(), QStringLiteral("no run on this tensor"));
    // Back on the tensor stepped, the states show again.
    m_document->setTensor(QStringLiteral("emb"), test::denseTensor({2, 2}, {1, 2, 3, 4}), 2, {file, QStringLiteral("/emb")});
    m_document->setHover(3);
    QVERIFY2(m_inspector->statesText().contains(QStringLiteral("param 3.5")), qPrintable(m_inspector->statesText()));
}

QTEST_MAIN(TestTensorStates)
#include "tst_tensor_states.moc"
