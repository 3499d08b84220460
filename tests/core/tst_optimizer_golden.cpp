// Every golden case of tests/data/golden/optim.h5 (made by tests/reference/make_optim_golden.py
// from PyTorch 1.13 and MXNet's kernel formulas): parameter, every state, step count and
// per-row last update must equal the reference to float32 rounding (relative 2e-6, docs/SEMANTICS.md).
#include "golden_cases.h"

#include <QTest>
#include <cmath>

using namespace sparsity;

class TestOptimizerGolden : public QObject {
    Q_OBJECT

private slots:
    void matchesReference_data();
    void matchesReference();
};

// |a - b| <= 2e-6 * max(|a|, |b|), with an absolute floor for values that cancel to ~0.
void compareClose(const std::vector<double> &actual, const std::vector<double> &expected, const QString &what)
{
    QCOMPARE(actual.size(), expected.size());
    for (std::size_t k = 0; k < actual.size(); ++k) {
        const double scale = std::max({std::abs(actual[k]), std::abs(expected[k]), 1e-6});
        if (std::abs(actual[k] - expected[k]) > 2e-6 * scale)
            QFAIL(qPrintable(QStringLiteral("%1[%2]: %3 vs reference %4")
                                 .arg(what)
                                 .arg(k)
                                 .arg(actual[k], 0, 'g', 9)
                                 .arg(expected[k], 0, 'g', 9)));
    }
}

std::vector<double> denseValues(const core::H5File &file, const std::string &path)
{
    const auto dense = core::toDenseDouble(core::readTensor(file, path));
    return {dense.values.begin(), dense.values.end()};
}

void TestOptimizerGolden::matchesReference_data()
{
    QTest::addColumn<QString>("name");
    const auto names = test::goldenCaseNames(core::H5File::openRead(test::kOptimGolden));
    QVERIFY(names.size() >= 15);
    for (const auto &name : names)
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

void TestOptimizerGolden::matchesReference()
{
    QFETCH(QString, name);
    const auto file = core::H5File::openRead(test::kOptimGolden);
    const std::string base = "/" + name.toStdString();
    auto c = test::loadGoldenCase(file, name.toStdString());
    auto &param = c.param;
    auto state = core::initialState<float>(c.options, param.shape);
    core::runSteps(param, state, c.options, c.grads, c.mask ? &*c.mask : nullptr);

    compareClose({param.values.begin(), param.values.end()}, denseValues(file, base + "/expected/param"), "param");
    for (const auto &buffer : state.buffers)
        compareClose({buffer.value.values.begin(), buffer.value.values.end()},
                     denseValues(file, base + "/expected/state/" + buffer.name), QString::fromStdString(buffer.name));
    QCOMPARE(state.step, static_cast<std::int64_t>(denseValues(file, base + "/expected/step").at(0)));
    const auto last = denseValues(file, base + "/expected/last_update");
    QCOMPARE((std::vector<double>(state.lastUpdate.begin(), state.lastUpdate.end())), last);
}

QTEST_GUILESS_MAIN(TestOptimizerGolden)
#include "tst_optimizer_golden.moc"
