// BATCH.json written by batchJson() (the GUI's "Save as batch") reads back to the same
// recipe, for the bundled examples and for a recipe using every key.
#include "core/pipeline/batch_recipe.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using namespace sparsity;

class TestBatchRecipe : public QObject {
    Q_OBJECT

private slots:
    void examplesRoundTrip_data();
    void examplesRoundTrip();
    void everyKeyRoundTrips();
};

namespace {

core::BatchRecipe reread(const core::BatchRecipe &recipe, const QString &folder)
{
    const std::string path = (folder + "/batch.json").toStdString();
    std::ofstream(path) << core::batchJson(recipe);
    return core::parseBatch(path);
}

} // namespace

void TestBatchRecipe::examplesRoundTrip_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("threshold_csr") << QStringLiteral("threshold_csr.json");
    QTest::newRow("data_norm_then_adagrad") << QStringLiteral("data_norm_then_adagrad.json");
    QTest::newRow("per_dataset_coo") << QStringLiteral("per_dataset_coo.json");
}

void TestBatchRecipe::examplesRoundTrip()
{
    QFETCH(QString, file);
    const auto recipe = core::parseBatch(std::string(SPARSITY_EXAMPLES_DIR "/") + file.toStdString());
    QTemporaryDir folder;
    const auto again = reread(recipe, folder.path());
    QCOMPARE(core::batchJson(again), core::batchJson(recipe));
    QCOMPARE(again.inputs, recipe.inputs);
    QCOMPARE(again.datasets, recipe.datasets);
    QCOMPARE(again.outputPattern, recipe.outputPattern);
    QCOMPARE(again.sparsify.has_value(), recipe.sparsify.has_value());
    QCOMPARE(again.step.has_value(), recipe.step.has_value());
}

void TestBatchRecipe::everyKeyRoundTrips()
{
    QTemporaryDir folder;
    const std::string path = (folder.path() + "/full.json").toStdString();
    std::ofstream(path) << R"({"version": 1, "inputs": ["a.h5", "more/*.h5"], "datasets": ["/emb"], "device": "cpu",
        "memory_limit": "1G", "sparsify": {"method": "data-norm", "sparsity_level": 0.25, "block": "2x3", "zeros_per_block": 4,
                     "norm": "L2", "memory_limit": "64M", "per_dataset": {"/emb": {"method": "row-norm", "keep": 0.75}}},
        "step": {"optimizer": "sgd", "semantics": "masked", "rule": "torch", "param": "/emb", "grads": ["/g0"],
                 "mask": "/m", "lr": 0.5, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01, "nesterov": false},
        "output": {"layout": "masked", "path": "out/{name}", "gzip": 4}})";
    const auto recipe = core::parseBatch(path);
    const auto again = reread(recipe, folder.path());
    QCOMPARE(core::batchJson(again), core::batchJson(recipe));
    const auto &c = again.sparsify->config;
    QCOMPARE(c.sparsityLevel, 0.25);
    QCOMPARE(c.blockRows, std::int64_t{2});
    QCOMPARE(c.blockCols, std::int64_t{3});
    QCOMPARE(c.zerosPerBlock.value(), std::int64_t{4});
    QVERIFY(c.norm == core::BlockNorm::L2);
    QCOMPARE(again.sparsify->memoryLimit.value(), std::int64_t{64} << 20);
    QCOMPARE(again.memoryLimit.value(), std::int64_t{1} << 30);
    QVERIFY(again.sparsify->perDataset.at("/emb").method == core::SparsifierMethod::RowNorm);
    QCOMPARE(again.sparsify->perDataset.at("/emb").keep, 0.75);
    const auto &hp = again.step->hyperparameters;
    QCOMPARE(hp.momentum.value(), 0.9);
    QCOMPARE(hp.dampening.value(), 0.1);
    QCOMPARE(again.step->mask.value(), std::string("/m"));
    QCOMPARE(again.layout, std::string("masked"));
    QCOMPARE(again.gzipLevel, 4);
}

QTEST_APPLESS_MAIN(TestBatchRecipe)
#include "tst_batch_recipe.moc"
