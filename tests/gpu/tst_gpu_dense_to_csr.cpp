// CUDA dense -> CSR equals the CPU kernel exactly. Skips cleanly without a CUDA device.
#include "../core/test_tensors.h"
#include "core/device/device.h"
#include "core/device/gpu_conversions.h"
#include "core/tensor/conversions.h"
#include "core/util/errors.h"

#include <QTest>

using namespace sparsity;

class TestGpuDenseToCsr : public QObject {
    Q_OBJECT

private slots:
    void matchesCpu_data();
    void matchesCpu();
    void missingDeviceIsAClearError();
};

Q_DECLARE_METATYPE(core::Shape)

void TestGpuDenseToCsr::matchesCpu_data()
{
    QTest::addColumn<core::Shape>("shape");
    QTest::addColumn<double>("density");
    QTest::newRow("small") << core::Shape{7, 9} << 0.3;
    QTest::newRow("wide rows (several tiles)") << core::Shape{33, 1000} << 0.1;
    QTest::newRow("4096 at 10%") << core::Shape{4096, 4096} << 0.1;
    QTest::newRow("all zero") << core::Shape{5, 5} << 0.0;
    QTest::newRow("no rows") << core::Shape{0, 5} << 0.5;
}

void TestGpuDenseToCsr::matchesCpu()
{
    if (!core::cudaAvailable())
        QSKIP(qPrintable(QStringLiteral("no CUDA device: ") + QString::fromStdString(core::deviceStatus().cudaDescription)));
    QFETCH(core::Shape, shape);
    QFETCH(double, density);
    const auto dense = test::randomDense<float>(shape, density, 3);
    const auto cpu = core::denseToCompressed(dense, core::CompressedAxis::Row);
    const auto gpu = core::denseToCsrOnGpu(dense);
    QVERIFY(gpu.indptr == cpu.indptr);
    QVERIFY(gpu.indices == cpu.indices);
    QVERIFY(gpu.values == cpu.values);
    const auto denseF64 = test::randomDense<double>(shape, density, 4);
    QVERIFY(core::denseToCsrOnGpu(denseF64).values == core::denseToCompressed(denseF64, core::CompressedAxis::Row).values);
}

void TestGpuDenseToCsr::missingDeviceIsAClearError()
{
    if (core::cudaAvailable())
        QSKIP("a CUDA device is present");
    try {
        core::denseToCsrOnGpu(test::randomDense<float>({2, 2}, 1.0, 1));
        QFAIL("expected an InputError");
    } catch (const core::InputError &error) {
        QVERIFY(QString(error.what()).startsWith(QStringLiteral("device cuda must name an available CUDA device")));
    }
}

QTEST_GUILESS_MAIN(TestGpuDenseToCsr)
#include "tst_gpu_dense_to_csr.moc"
