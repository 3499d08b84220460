// Jacobians equal PyTorch's (tests/reference/make_jacobian_golden.py): the analytical one to
// float64 rounding, the numerical one to central-difference accuracy. Cases with sparse inputs
// are checked with masked gradcheck, whose Jacobian rows of unspecified elements are zero, as
// PyTorch's projected gradients of a sparse leaf are. The instructive case fails in both modes
// with PyTorch's Jacobians: its analytical row 0 is sparse_mm's backward projecting each
// operand's gradient onto its own pattern.
#include "core/autograd/gradcheck.h"
#include "core/io/h5_attributes.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/tensor/tensor_ops.h"

#include <QTest>
#include <cmath>

using namespace sparsity;

class TestJacobianGolden : public QObject {
    Q_OBJECT

private slots:
    void matchesTorchJacobian_data();
    void matchesTorchJacobian();
    void instructiveCaseFailsWithPyTorchsJacobians_data();
    void instructiveCaseFailsWithPyTorchsJacobians();
};

static const std::string kGolden = SPARSITY_TEST_DATA_DIR "/golden/jacobian.h5";
static const std::string kInstructive = "/instructive_mm_sparse_mm";

namespace {

std::vector<core::NamedTensor> goldenInputs(const core::H5File &file, const std::string &base)
{
    std::vector<core::NamedTensor> inputs;
    for (const auto &input : core::childNames(file, base + "/inputs"))
        inputs.push_back({input, core::readTensor(file, base + "/inputs/" + input), false});
    return inputs;
}

// |actual - torch| <= tolerance * (1 + |torch|) everywhere, else fail naming the entry.
bool agrees(const core::Buffer<double> &actual, const std::string &path, const core::H5File &file, double tolerance)
{
    const auto expected = core::toDenseDouble(core::readTensor(file, path));
    if (expected.values.size() != actual.size())
        return false;
    for (std::size_t i = 0; i < actual.size(); ++i)
        if (!(std::abs(actual[i] - expected.values[i]) <= tolerance * (1.0 + std::abs(expected.values[i])))) {
            qWarning("%s[%zu] = %.15g, torch %.15g", path.c_str(), i, actual[i], expected.values[i]);
            return false;
        }
    return true;
}

} // namespace

void TestJacobianGolden::matchesTorchJacobian_data()
{
    QTest::addColumn<QString>("name");
    for (const auto &name : core::childNames(core::H5File::openRead(kGolden), "/"))
        if ("/" + name != kInstructive)
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

void TestJacobianGolden::matchesTorchJacobian()
{
    QFETCH(QString, name);
    const std::string base = "/" + name.toStdString();
    const auto file = core::H5File::openRead(kGolden);
    core::H5Handle group(H5Gopen2(file.id(), base.c_str(), H5P_DEFAULT), H5Gclose);
    const std::string expression = *core::readStringAttribute(group.id(), "expr");
    const auto inputs = goldenInputs(file, base);

    core::GradcheckOptions options;
    options.masked = H5Aexists(group.id(), "masked") > 0; // sparse inputs: PyTorch's gradients are projected
    const auto parsed = core::parseExpression(expression);
    const auto report = core::gradcheck(*parsed, expression, inputs, options);
    QVERIFY(report.passed);
    QCOMPARE(report.inputs.size(), inputs.size());
    for (const auto &j : report.inputs) {
        const auto expected = core::toDenseDouble(core::readTensor(file, base + "/jacobian/" + j.name));
        QCOMPARE(core::shapeToString(expected.shape), core::shapeToString({j.rows, j.cols}));
        for (std::size_t i = 0; i < expected.values.size(); ++i) {
            const double torch = expected.values[i];
            if (!(std::abs(j.analytical[i] - torch) <= 1e-10 * (1.0 + std::abs(torch))))
                QFAIL(qPrintable(QStringLiteral("%1 analytical[%2] = %3, torch %4")
                                     .arg(QString::fromStdString(j.name))
                                     .arg(i)
                                     .arg(j.analytical[i], 0, 'g', 15)
                                     .arg(torch, 0, 'g', 15)));
            if (!(std::abs(j.numerical[i] - torch) <= 1e-6 * (1.0 + std::abs(torch))))
                QFAIL(qPrintable(QStringLiteral("%1 numerical[%2] = %3, torch %4")
                                     .arg(QString::fromStdString(j.name))
                                     .arg(i)
                                     .arg(j.numerical[i], 0, 'g', 15)
                                     .arg(torch, 0, 'g', 15)));
        }
    }
}

void TestJacobianGolden::instructiveCaseFailsWithPyTorchsJacobians_data()
{
    QTest::addColumn<bool>("masked");
    QTest::newRow("non-masked") << false;
    QTest::newRow("masked") << true;
}

void TestJacobianGolden::instructiveCaseFailsWithPyTorchsJacobians()
{
    QFETCH(bool, masked);
    const auto file = core::H5File::openRead(kGolden);
    core::H5Handle group(H5Gopen2(file.id(), kInstructive.c_str(), H5P_DEFAULT), H5Gclose);
    const std::string expression = *core::readStringAttribute(group.id(), "expr");
    core::GradcheckOptions options;
    options.masked = masked;
    const auto report =
        core::gradcheck(*core::parseExpression(expression), expression, goldenInputs(file, kInstructive), options);
    QVERIFY(!report.passed);
    QCOMPARE(report.inputs.size(), std::size_t{1});
    const auto &j = report.inputs.front();
    QVERIFY(agrees(j.analytical, kInstructive + "/analytical/x", file, 1e-10));
    QVERIFY(agrees(j.numerical, kInstructive + (masked ? "/numerical_masked/x" : "/numerical/x"), file, 1e-6));
}

QTEST_APPLESS_MAIN(TestJacobianGolden)
#include "tst_jacobian_golden.moc"
