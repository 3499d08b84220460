// Optimizer steps on CUDA equal the CPU steps on every golden case (relative 2e-6: nvcc may
// contract multiply-adds, like PyTorch's AVX2 kernels). Skips cleanly without a device.
#include "../core/golden_cases.h"
#include "core/device/device.h"
#include "core/device/gpu_steps.h"
#include "core/optim/semantics_comparison.h"

#include <QTest>
#include <cmath>

using namespace sparsity;

class TestGpuOptimizer : public QObject {
    Q_OBJECT

private slots:
    void matchesCpu_data();
    void matchesCpu();
    void semanticsComparisonMatchesCpu();
};

void TestGpuOptimizer::matchesCpu_data()
{
    QTest::addColumn<QString>("name");
    for (const auto &name : test::goldenCaseNames(core::H5File::openRead(test::kOptimGolden)))
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

void TestGpuOptimizer::matchesCpu()
{
    if (!core::cudaAvailable())
        QSKIP(qPrintable(QStringLiteral("no CUDA device: ") + QString::fromStdString(core::deviceStatus().cudaDescription)));
    QFETCH(QString, name);
    const auto file = core::H5File::openRead(test::kOptimGolden);
    auto cpu = test::loadGoldenCase(file, name.toStdString());
    auto gpu = test::loadGoldenCase(file, name.toStdString());
    const auto *mask = cpu.mask ? &*cpu.mask : nullptr;
    auto cpuState = core::initialState<float>(cpu.options, cpu.param.shape);
    auto gpuState = core::initialState<float>(gpu.options, gpu.param.shape);
    core::runSteps(cpu.param, cpuState, cpu.options, cpu.grads, mask);
    core::runStepsOnGpu(gpu.param, gpuState, gpu.options, gpu.grads, gpu.mask ? &*gpu.mask : nullptr);
    auto close = [](const auto &a, const auto &b) {
        for (std::size_t k = 0; k < a.size(); ++k)
            if (std::abs(double(a[k]) - double(b[k])) > 2e-6 * std::max({std::abs(double(a[k])), std::abs(double(b[k])), 1e-6}))
                return false;
        return a.size() == b.size();
    };
    QVERIFY(close(gpu.param.values, cpu.param.values));
    for (std::size_t k = 0; k < cpuState.buffers.size(); ++k)
        QVERIFY2(close(gpuState.buffers[k].value.values, cpuState.buffers[k].value.values), cpuState.buffers[k].name.c_str());
    QCOMPARE(gpuState.step, cpuState.step);
    QVERIFY(gpuState.lastUpdate == cpuState.lastUpdate);
}

void TestGpuOptimizer::semanticsComparisonMatchesCpu()
{
    // The Optimizer panel's device choice: compareSemantics on CUDA equals it on the CPU.
    if (!core::cudaAvailable())
        QSKIP(qPrintable(QStringLiteral("no CUDA device: ") + QString::fromStdString(core::deviceStatus().cudaDescription)));
    core::DenseTensor<float> param{{6, 3}, {}};
    for (int i = 0; i < 18; ++i)
        param.values.push_back(0.05f * static_cast<float>(i) - 0.4f);
    core::CooTensor<float> grad{{6, 3}, 1, 2, {4, 1}, {}, true};
    for (int k = 0; k < 6; ++k)
        grad.values.push_back(0.3f * static_cast<float>(k) - 0.7f);
    const std::vector<core::NamedGradient> grads{{"g", core::Tensor(core::Storage{grad})},
                                                 {"g", core::Tensor(core::Storage{grad})}};
    core::HyperparameterInput hp;
    hp.lr = 0.1;
    const std::vector<core::Semantics> semantics{core::Semantics::Dense, core::Semantics::Lazy, core::Semantics::Masked};
    const core::Tensor start(core::Storage{param});
    const auto cpu = core::compareSemantics(start, grads, nullptr, core::OptimizerKind::Adam, core::Rule::Torch, hp, semantics);
    const auto gpu = core::compareSemantics(start, grads, nullptr, core::OptimizerKind::Adam, core::Rule::Torch, hp, semantics,
                                            {}, core::Device::Cuda);
    QCOMPARE(gpu.results.size(), cpu.results.size());
    for (std::size_t r = 0; r < cpu.results.size(); ++r)
        for (std::size_t t = 0; t < cpu.results[r].tensors.size(); ++t) {
            const auto &a = cpu.results[r].tensors[t].second.values, &b = gpu.results[r].tensors[t].second.values;
            for (std::size_t k = 0; k < a.size(); ++k)
                QVERIFY(std::abs(a[k] - b[k]) <= 2e-6 * std::max({std::abs(a[k]), std::abs(b[k]), 1e-6}));
        }
}

QTEST_GUILESS_MAIN(TestGpuOptimizer)
#include "tst_gpu_optimizer.moc"
