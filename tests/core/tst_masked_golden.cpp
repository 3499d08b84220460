// Expression results equal torch.masked's (tests/reference/make_masked_golden.py): values
// where specified to float rounding, masks exactly, and the printed form of the seed case.
#include "core/expr/evaluator.h"
#include "core/io/h5_attributes.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/tensor/tensor_ops.h"

#include <QTest>
#include <cmath>

using namespace sparsity;

class TestMaskedGolden : public QObject {
    Q_OBJECT

private slots:
    void matchesTorchMasked_data();
    void matchesTorchMasked();
};

static const std::string kGolden = SPARSITY_TEST_DATA_DIR "/golden/masked.h5";

static std::string attribute(const core::H5File &file, const std::string &path, const char *name)
{
    core::H5Handle group(H5Gopen2(file.id(), path.c_str(), H5P_DEFAULT), H5Gclose);
    return core::readStringAttribute(group.id(), name).value_or("");
}

static core::Mask maskFrom(const core::Tensor &boolTensor)
{
    const auto dense = core::toDenseDouble(boolTensor);
    core::Mask mask(dense.values.size());
    for (std::size_t i = 0; i < mask.size(); ++i)
        mask[i] = dense.values[i] != 0.0;
    return mask;
}

static std::vector<core::EvalInput> readInputs(const core::H5File &file, const std::string &caseName, core::Layout layout)
{
    std::vector<core::NamedTensor> inputs;
    const std::string base = "/" + caseName + "/inputs";
    for (const auto &name : core::childNames(file, base)) {
        core::Tensor tensor = core::readTensor(file, base + "/" + name + "/data");
        if (core::linkExists(file.id(), base + "/" + name + "/mask")) {
            tensor.setMask(maskFrom(core::readTensor(file, base + "/" + name + "/mask")));
            tensor = core::toLayout(tensor, layout);
        }
        inputs.push_back({name, std::move(tensor), false});
    }
    return core::makeEvalInputs(inputs);
}

void TestMaskedGolden::matchesTorchMasked_data()
{
    QTest::addColumn<QString>("name");
    for (const auto &name : core::childNames(core::H5File::openRead(kGolden), "/"))
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

void TestMaskedGolden::matchesTorchMasked()
{
    QFETCH(QString, name);
    const std::string caseName = name.toStdString();
    const auto file = core::H5File::openRead(kGolden);
    const std::string expression = attribute(file, "/" + caseName, "expr");
    const core::Layout layout = attribute(file, "/" + caseName, "layout") == "coo" ? core::Layout::Coo : core::Layout::Dense;

    const auto parsed = core::parseExpression(expression);
    const auto result = core::evaluateExpression(*parsed, expression, readInputs(file, caseName, layout));
    const core::Tensor tensor = core::toTensor(result);
    const auto values = core::toDenseAs<double>(core::Tensor(tensor.storage())); // data, mask ignored
    const auto specified = core::specifiedMaskDense(tensor);

    const auto expected = core::toDenseDouble(core::readTensor(file, "/" + caseName + "/expected/data"));
    QCOMPARE(core::shapeToString(values.shape), core::shapeToString(expected.shape));
    const bool masked = core::linkExists(file.id(), "/" + caseName + "/expected/mask");
    QCOMPARE(tensor.isMasked(), masked);
    const auto expectedMask =
        masked ? maskFrom(core::readTensor(file, "/" + caseName + "/expected/mask")) : core::Mask(expected.values.size(), 1);
    const bool isDouble = tensor.dtype() == core::DType::Float64;
    for (std::size_t i = 0; i < expected.values.size(); ++i) {
        if ((specified[i] != 0) != (expectedMask[i] != 0))
            QFAIL(qPrintable(QStringLiteral("%1: mask[%2] = %3, torch.masked has %4")
                                 .arg(name)
                                 .arg(i)
                                 .arg(specified[i])
                                 .arg(expectedMask[i])));
        if (!expectedMask[i])
            continue;
        const double ours = values.values[i], theirs = expected.values[i];
        // Float rounding: torch accumulates sums in float32, we in double.
        const double tolerance = isDouble ? 1e-12 * (1.0 + std::abs(theirs)) : 1e-6 + 4e-6 * std::abs(theirs);
        if (!(std::abs(ours - theirs) <= tolerance) && !(std::isnan(ours) && std::isnan(theirs)))
            QFAIL(qPrintable(QStringLiteral("%1: value[%2] = %3, torch.masked has %4")
                                 .arg(name)
                                 .arg(i)
                                 .arg(ours, 0, 'g', 9)
                                 .arg(theirs, 0, 'g', 9)));
    }
    const std::string text = attribute(file, "/" + caseName, "text");
    if (!text.empty())
        QCOMPARE(core::formatValue(result), text);
}

QTEST_APPLESS_MAIN(TestMaskedGolden)
#include "tst_masked_golden.moc"
