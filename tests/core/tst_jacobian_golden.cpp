// Jacobians equal PyTorch's (tests/reference/make_jacobian_golden.py): the analytical one to
// float64 rounding, the numerical one to central-difference accuracy. Cases with sparse inputs
// are checked with masked gradcheck, whose Jacobian rows of unspecified elements are zero, as
// PyTorch's projected gradients of a sparse leaf are.
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
};

static const std::string kGolden = SPARSITY_TEST_DATA_DIR "/golden/jacobian.h5";

void TestJacobianGolden::matchesTorchJacobian_data()
{
    QTest::addColumn<QString>("name");
    for (const auto &name : core::childNames(core::H5File::openRead(kGolden), "/"))
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

void TestJacobianGolden::matchesTorchJacobian()
{
    QFETCH(QString, name);
    const std::string base = "/" + name.toStdString();
    const auto file = core::H5File::openRead(kGolden);
    core::H5Handle group(H5Gopen2(file.id(), base.c_str(), H5P_DEFAULT), H5Gclose);
    const std::string expression = *core::readStringAttribute(group.id(), "expr");
    std::vector<core::NamedTensor> inputs;
    for (const auto &input : core::childNames(file, base + "/inputs"))
        inputs.push_back({input, core::readTensor(file, base + "/inputs/" + input), false});

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

QTEST_APPLESS_MAIN(TestJacobianGolden)
#include "tst_jacobian_golden.moc"
