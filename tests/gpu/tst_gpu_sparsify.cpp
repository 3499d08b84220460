// Sparsifier kernels on CUDA equal the CPU kernels. Skips cleanly without a CUDA device.
#include "../core/test_tensors.h"
#include "core/device/device.h"
#include "core/device/gpu_sparsify.h"
#include "core/sparsify/data_sparsifier.h"
#include "core/sparsify/mask_kernels.h"

#include <QTest>
#include <cmath>

using namespace sparsity;

class TestGpuSparsify : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        if (!core::cudaAvailable())
            QSKIP(qPrintable(QStringLiteral("no CUDA device: ") + QString::fromStdString(core::deviceStatus().cudaDescription)));
    }
    void deviceComesUpOnce(); // first: before any kernel has made the context
    void thresholdMatchesCpu();
    void nmMatchesCpu();
    void blockScoresAndMaskMatchCpu();
};

void TestGpuSparsify::deviceComesUpOnce()
{
    QCOMPARE(core::initDevice(core::Device::Cpu), 0.0);
    const double first = core::initDevice(core::Device::Cuda);
    QVERIFY2(first > 0.0, "making the CUDA context takes time");
    QCOMPARE(core::initDevice(core::Device::Cuda), 0.0); // once per process
    QCOMPARE(core::resolveDevice(core::DeviceChoice::Auto), core::Device::Cpu);
    qInfo("CUDA context and first allocation: %.3f s", first);
}

void TestGpuSparsify::thresholdMatchesCpu()
{
    auto x = test::randomDense<float>({513, 77}, 0.9, 1);
    x.values[5] = std::nanf("");
    auto gpu = x;
    const auto mask = core::thresholdSquashOnGpu(gpu, 0.8f);
    core::Mask cpuMask(x.values.size());
    auto cpu = x;
    core::thresholdSquash(x.values.data(), cpu.values.data(), cpuMask.data(), x.numel(), 0.8f);
    QVERIFY(mask == cpuMask);
    for (std::size_t k = 0; k < cpu.values.size(); ++k)
        QVERIFY(cpu.values[k] == gpu.values[k] || (std::isnan(cpu.values[k]) && std::isnan(gpu.values[k])));
}

void TestGpuSparsify::nmMatchesCpu()
{
    auto x = test::randomDense<float>({300, 16}, 0.7, 2); // zeros give ties: lower index wins on both
    core::Mask cpu(x.values.size());
    core::nmMask(x.values.data(), cpu.data(), x.numel() / 8, 3, 8);
    QVERIFY(core::nmMaskOnGpu(x, 3, 8) == cpu);
}

void TestGpuSparsify::blockScoresAndMaskMatchCpu()
{
    const auto x = test::randomDense<float>({97, 131}, 1.0, 3);
    core::SparsifierConfig c;
    c.method = core::SparsifierMethod::DataNorm;
    c.blockRows = 3;
    c.blockCols = 5;
    c.zerosPerBlock = 7;
    for (auto norm : {core::BlockNorm::L1, core::BlockNorm::L2}) {
        c.norm = norm;
        const auto cpu = core::blockScores(x.values.data(), 97, 131, c);
        const auto gpu = core::blockScoresOnGpu(x.values.data(), 97, 131, c);
        QCOMPARE(gpu.size(), cpu.size());
        for (std::size_t b = 0; b < cpu.size(); ++b) // nvcc may contract x*x + sum into an FMA
            QVERIFY(std::abs(gpu[b] - cpu[b]) <= 1e-6f * std::max(1.0f, std::abs(cpu[b])));
        const auto maskCpu = core::computeMask(core::Tensor(core::Storage{x}), c);
        QVERIFY(core::dataNormMaskOnGpu(x, c, nullptr) == maskCpu);
    }
}

QTEST_GUILESS_MAIN(TestGpuSparsify)
#include "tst_gpu_sparsify.moc"
