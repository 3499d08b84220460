// Every golden case of tests/data/golden/optim.h5 (made by tests/reference/make_optim_golden.py
// from PyTorch 1.13 and MXNet's kernel formulas): parameter, every state, step count and
// per-row last update must equal the reference to float32 rounding (relative 2e-6, SPEC 6).
#include "core/io/h5_attributes.h"
#include "core/io/h5_reader.h"
#include "core/optim/optimizer_step.h"
#include "core/tensor/tensor_ops.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <cmath>

using namespace sparsity;

class TestOptimizerGolden : public QObject {
    Q_OBJECT

private slots:
    void matchesReference_data();
    void matchesReference();
};

static const std::string kGolden = SPARSITY_TEST_DATA_DIR "/golden/optim.h5";

core::HyperparameterInput hyperparameters(const nlohmann::json &o)
{
    core::HyperparameterInput in;
    auto opt = [&](const char *key, std::optional<double> &slot) {
        if (o.contains(key))
            slot = o.at(key).get<double>();
    };
    opt("lr", in.lr);
    opt("eps", in.eps);
    opt("weight_decay", in.weightDecay);
    opt("momentum", in.momentum);
    opt("beta1", in.beta1);
    opt("beta2", in.beta2);
    opt("lr_decay", in.lrDecay);
    opt("initial_accumulator_value", in.initialAccumulatorValue);
    opt("clip_gradient", in.clipGradient);
    opt("rescale_grad", in.rescaleGrad);
    opt("dampening", in.dampening);
    in.nesterov = o.value("nesterov", false);
    return in;
}

// |a - b| <= 2e-6 * max(|a|, |b|), with an absolute floor for values that cancel to ~0.
void compareClose(const std::vector<double> &actual, const std::vector<double> &expected, const QString &what)
{
    QCOMPARE(actual.size(), expected.size());
    for (std::size_t k = 0; k < actual.size(); ++k) {
        const double scale = std::max({std::abs(actual[k]), std::abs(expected[k]), 1e-6});
        if (std::abs(actual[k] - expected[k]) > 2e-6 * scale)
            QFAIL(qPrintable(QStringLiteral("%1[%2]: %3 vs reference %4").arg(what).arg(k).arg(actual[k], 0, 'g', 9).arg(expected[k], 0, 'g', 9)));
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
    const auto file = core::H5File::openRead(kGolden);
    std::vector<std::string> names;
    H5Literate(file.id(), H5_INDEX_NAME, H5_ITER_INC, nullptr,
               [](hid_t, const char *name, const H5L_info_t *, void *out) -> herr_t {
                   static_cast<std::vector<std::string> *>(out)->emplace_back(name);
                   return 0;
               },
               &names);
    QVERIFY(names.size() >= 15);
    for (const auto &name : names)
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

void TestOptimizerGolden::matchesReference()
{
    QFETCH(QString, name);
    const auto file = core::H5File::openRead(kGolden);
    const std::string base = "/" + name.toStdString();
    core::H5Handle group(H5Gopen2(file.id(), base.c_str(), H5P_DEFAULT), H5Gclose);
    const auto json = nlohmann::json::parse(*core::readStringAttribute(group.id(), "options"));
    const auto options = core::resolveOptions(core::parseOptimizer(json.at("optimizer").get<std::string>()),
                                              core::parseSemantics(json.at("semantics").get<std::string>()),
                                              core::parseRule(json.at("rule").get<std::string>()), hyperparameters(json));
    const auto steps = *core::readIntArrayAttribute(group.id(), "steps");

    auto param = std::get<core::DenseTensor<float>>(core::readTensor(file, base + "/param").storage());
    std::vector<core::NamedGradient> grads;
    for (std::int64_t k = 0; k < steps.at(0); ++k)
        grads.push_back({name.toStdString() + "/grads/" + std::to_string(k), core::readTensor(file, base + "/grads/" + std::to_string(k))});
    std::optional<core::Tensor> mask;
    if (core::linkExists(file.id(), base + "/mask"))
        mask = core::readTensor(file, base + "/mask");

    auto state = core::initialState<float>(options, param.shape);
    core::runSteps(param, state, options, grads, mask ? &*mask : nullptr);

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
