// The evaluator's fused programs and reductions on CUDA equal the CPU kernels to float
// rounding. Skips cleanly without a CUDA device.
#include "../core/test_tensors.h"
#include "core/device/device.h"
#include "core/expr/evaluator.h"

#include <QTest>
#include <cmath>

using namespace sparsity;

class TestGpuEval : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        if (!core::cudaAvailable())
            QSKIP(qPrintable(QStringLiteral("no CUDA device: ") + QString::fromStdString(core::deviceStatus().cudaDescription)));
    }
    void matchesCpu_data();
    void matchesCpu();
};

void TestGpuEval::matchesCpu_data()
{
    QTest::addColumn<QString>("expression");
    QTest::addColumn<bool>("isDouble");
    for (const char *e : {"sqrt(abs(x)) * x + 1.5", "clamp(exp(x) - y, -1, 2) / (y * y + 1)", "where(c, x, maximum(x, y))",
                          "sum(sqrt(abs(x)) * x + 1.5, 1)", "sum(x * y)", "mean(x, 0)", "amax(exp(x) - y, 0)", "amin(x, 2)",
                          "norm(x - y, 1)", "sum(masked(x, c) * 2, 1)", "amax(masked(x, c))", "mean(masked(x, c) + y, 0)"})
        for (bool isDouble : {false, true})
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(e).arg(isDouble ? "f64" : "f32"))) << QString(e) << isDouble;
}

void TestGpuEval::matchesCpu()
{
    QFETCH(QString, expression);
    QFETCH(bool, isDouble);
    const core::Shape shape{7, 1300, 3}; // several blocks per slab, inner dims wrap
    const auto dtype = isDouble ? core::DType::Float64 : core::DType::Float32;
    core::Tensor c(core::Storage{test::randomDense<float>(shape, 0.5, 3)});
    const auto inputs = core::makeEvalInputs({{"x", test::randomTensor(dtype, shape, 0.9, 1), false},
                                              {"y", test::randomTensor(dtype, shape, 0.9, 2), false},
                                              {"c", c, true}});
    const std::string source = expression.toStdString();
    const auto parsed = core::parseExpression(source);
    const auto cpu = core::toTensor(core::evaluateExpression(*parsed, source, inputs));
    const auto gpu =
        core::toTensor(core::evaluateExpression(*parsed, source, inputs, core::MaskPolicy::Strict, core::Device::Cuda));
    QCOMPARE(core::shapeToString(gpu.shape()), core::shapeToString(cpu.shape()));
    QCOMPARE(gpu.isMasked(), cpu.isMasked());
    const auto a = core::toDenseDouble(cpu), b = core::toDenseDouble(gpu);
    const auto ma = core::specifiedMaskDense(cpu), mb = core::specifiedMaskDense(gpu);
    const double tolerance = isDouble ? 1e-12 : 2e-6;
    for (std::size_t i = 0; i < a.values.size(); ++i) {
        QCOMPARE(mb[i], ma[i]);
        QVERIFY2(std::abs(a.values[i] - b.values[i]) <= tolerance * (1.0 + std::abs(a.values[i])),
                 qPrintable(QStringLiteral("[%1] cpu %2 gpu %3").arg(i).arg(a.values[i]).arg(b.values[i])));
    }
}

QTEST_APPLESS_MAIN(TestGpuEval)
#include "tst_gpu_eval.moc"
