// Masks equal PyTorch's (tests/reference/make_sparsify_golden.py): DataNormSparsifier itself
// for data-norm, torch ops for threshold, N:M and row-norm; CubicSL's levels.
#include "core/io/h5_attributes.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/sparsify/data_sparsifier.h"
#include "core/sparsify/scheduler.h"
#include "core/tensor/tensor_ops.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace sparsity;

class TestSparsifierGolden : public QObject {
    Q_OBJECT

private slots:
    void masksMatchPyTorch_data();
    void masksMatchPyTorch();
    void cubicMatchesCubicSL();
};

static const std::string kGolden = SPARSITY_TEST_DATA_DIR "/golden/sparsify.h5";

static nlohmann::json options(const core::H5File &file, const std::string &name)
{
    core::H5Handle group(H5Gopen2(file.id(), ("/" + name).c_str(), H5P_DEFAULT), H5Gclose);
    return nlohmann::json::parse(*core::readStringAttribute(group.id(), "options"));
}

void TestSparsifierGolden::masksMatchPyTorch_data()
{
    QTest::addColumn<QString>("name");
    for (const auto &name : core::childNames(core::H5File::openRead(kGolden), "/"))
        if (name.rfind("schedule", 0) != 0)
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

void TestSparsifierGolden::masksMatchPyTorch()
{
    QFETCH(QString, name);
    const auto file = core::H5File::openRead(kGolden);
    const auto o = options(file, name.toStdString());
    core::SparsifierConfig config;
    config.method = core::parseMethod(o.at("method").get<std::string>());
    config.threshold = o.value("threshold", 0.0);
    config.sparsityLevel = o.value("sparsity_level", 0.5);
    if (o.contains("block"))
        std::tie(config.blockRows, config.blockCols) = core::parseBlockShape(o.at("block").get<std::string>());
    if (o.contains("zeros_per_block"))
        config.zerosPerBlock = o.at("zeros_per_block").get<std::int64_t>();
    config.norm = o.value("norm", std::string("L1")) == "L2" ? core::BlockNorm::L2 : core::BlockNorm::L1;
    config.n = o.value("n", std::int64_t{2});
    config.m = o.value("m", std::int64_t{4});
    config.keep = o.value("keep", 0.5);

    // Through the sparsifier API, as a user would.
    auto sparsifier = core::makeSparsifier(config);
    sparsifier->addData("x", core::readTensor(file, "/" + name.toStdString() + "/data"));
    sparsifier->step();
    const auto &mask = sparsifier->mask("x");
    const auto expected = core::toDenseDouble(core::readTensor(file, "/" + name.toStdString() + "/expected_mask"));
    QCOMPARE(mask.size(), expected.values.size());
    for (std::size_t k = 0; k < mask.size(); ++k)
        if ((mask[k] != 0) != (expected.values[k] != 0))
            QFAIL(qPrintable(QStringLiteral("mask[%1] = %2, PyTorch has %3").arg(k).arg(mask[k]).arg(expected.values[k])));
}

void TestSparsifierGolden::cubicMatchesCubicSL()
{
    const auto file = core::H5File::openRead(kGolden);
    for (const char *name : {"schedule_cubic", "schedule_cubic_initially_zero"}) {
        const auto o = options(file, name);
        const core::CubicScheduler cubic(o.at("s0"), o.at("sf"), o.at("t0"), o.at("dt"), o.at("n"), o.at("initially_zero"));
        const auto steps = core::toDenseDouble(core::readTensor(file, std::string("/") + name + "/steps"));
        const auto levels = core::toDenseDouble(core::readTensor(file, std::string("/") + name + "/levels"));
        for (std::size_t k = 0; k < steps.values.size(); ++k)
            QCOMPARE(cubic.level(static_cast<std::int64_t>(steps.values[k])), levels.values[k]);
    }
}

QTEST_GUILESS_MAIN(TestSparsifierGolden)
#include "tst_sparsifier_golden.moc"
