// What each semantics touches (docs/SEMANTICS.md), independent of any reference file: lazy never
// writes outside the gradient's pattern, masked follows the mask and not the storage, a NaN
// gradient is refused before anything changes, and rule refusals carry the rule's reason.
#include "core/optim/divergence.h"
#include "core/optim/optimizer_step.h"
#include "core/optim/semantics_comparison.h"
#include "core/util/errors.h"
#include "test_tensors.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace sparsity;
using core::Semantics;

class TestOptimizerSemantics : public QObject {
    Q_OBJECT

private slots:
    void comparisonRunsEachSemanticsFromTheSameStart();
    void comparisonNamesTheRefusingSemantics();
    void lazyTouchesOnlyThePattern_data();
    void lazyTouchesOnlyThePattern();
    void lazyTorchMomentumKeepsMovingTouchedRows_data();
    void lazyTorchMomentumKeepsMovingTouchedRows();
    void csrGradientEqualsCoo();
    void blocksFilledFromAGradientReadWhole();
    void maskDecidesNotStorage();
    void maskedFillOfManyChunksIsAScan();
    void nanGradientChangesNothing();
    void ruleRefusalsNameTheRule();
    void divergenceCountsRows();
};

namespace {

core::OptimizerOptions options(core::OptimizerKind kind, Semantics semantics, core::Rule rule = core::Rule::Torch)
{
    core::HyperparameterInput hp;
    hp.lr = 0.1;
    if (kind == core::OptimizerKind::Sgd)
        hp.momentum = 0.9;
    return core::resolveOptions(kind, semantics, rule, hp);
}

core::Tensor rowGradient() // rows 1 and 3 of a [5, 4] tensor, with a duplicate of row 3
{
    core::CooTensor<float> coo{{5, 4}, 1, 3, {3, 1, 3}, {}, false};
    for (int k = 0; k < 12; ++k)
        coo.values.push_back(0.25f * static_cast<float>(k + 1));
    return core::Tensor(core::Storage{coo});
}

} // namespace

void TestOptimizerSemantics::lazyTouchesOnlyThePattern_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("rule");
    for (int kind = 0; kind < 3; ++kind)
        for (int rule = 0; rule < 2; ++rule)
            QTest::addRow("%s/%s", core::optimizerName(core::OptimizerKind(kind)).data(), core::ruleName(core::Rule(rule)).data())
                << kind << rule;
}

void TestOptimizerSemantics::lazyTouchesOnlyThePattern()
{
    QFETCH(int, kind);
    QFETCH(int, rule);
    const auto opts = options(core::OptimizerKind(kind), Semantics::Lazy, core::Rule(rule));
    auto param = test::randomDense<float>({5, 4}, 1.0, 3);
    const auto before = param;
    auto state = core::initialState<float>(opts, param.shape);
    const auto stateBefore = state;
    const std::vector<core::NamedGradient> grads{{"g", rowGradient()}, {"g", rowGradient()}};
    core::runSteps(param, state, opts, grads, nullptr);
    for (std::int64_t r : {0, 2, 4})
        for (int j = 0; j < 4; ++j) {
            const auto k = static_cast<std::size_t>(r * 4 + j);
            QCOMPARE(param.values[k], before.values[k]);
            for (std::size_t b = 0; b < state.buffers.size(); ++b)
                QCOMPARE(state.buffers[b].value.values[k], stateBefore.buffers[b].value.values[k]);
        }
    QVERIFY(param.values[4] != before.values[4]); // row 1 moved
    QCOMPARE((std::vector<std::int64_t>(state.lastUpdate.begin(), state.lastUpdate.end())),
             (std::vector<std::int64_t>{0, 2, 0, 2, 0}));
}

void TestOptimizerSemantics::lazyTorchMomentumKeepsMovingTouchedRows_data()
{
    QTest::addColumn<int>("rule");
    QTest::addColumn<std::vector<std::int64_t>>("lastUpdate");
    // PyTorch's buffer is sparse and holds rows 1 and 3 from step 1 on: d = buf moves them at
    // step 2 too. MXNet's lazy momentum updates only the rows of the step's gradient.
    QTest::newRow("torch") << int(core::Rule::Torch) << std::vector<std::int64_t>{2, 2, 0, 2, 0};
    QTest::newRow("mxnet") << int(core::Rule::Mxnet) << std::vector<std::int64_t>{2, 1, 0, 1, 0};
}

void TestOptimizerSemantics::lazyTorchMomentumKeepsMovingTouchedRows()
{
    QFETCH(int, rule);
    QFETCH(std::vector<std::int64_t>, lastUpdate);
    const auto opts = options(core::OptimizerKind::Sgd, Semantics::Lazy, core::Rule(rule));
    auto param = test::randomDense<float>({5, 4}, 1.0, 3);
    auto state = core::initialState<float>(opts, param.shape);
    const core::CooTensor<float> row0{{5, 4}, 1, 1, {0}, {1.0f, 2.0f, 3.0f, 4.0f}, true};
    core::runSteps(param, state, opts, std::vector<core::NamedGradient>{{"g", rowGradient()}}, nullptr);
    const auto afterFirst = param;
    core::runSteps(param, state, opts, std::vector<core::NamedGradient>{{"g", core::Tensor(core::Storage{row0})}}, nullptr);
    QCOMPARE((std::vector<std::int64_t>(state.lastUpdate.begin(), state.lastUpdate.end())), lastUpdate);
    for (std::int64_t r = 0; r < 5; ++r)
        for (int j = 0; j < 4; ++j) {
            const auto k = static_cast<std::size_t>(r * 4 + j);
            QCOMPARE(param.values[k] != afterFirst.values[k], lastUpdate[static_cast<std::size_t>(r)] == 2);
        }
}

void TestOptimizerSemantics::csrGradientEqualsCoo()
{
    const auto opts = options(core::OptimizerKind::Adagrad, Semantics::Lazy);
    const auto dense = core::Tensor(core::Storage{test::randomDense<float>({6, 5}, 0.3, 8)});
    auto runWith = [&](const core::Tensor &grad) {
        auto param = test::randomDense<float>({6, 5}, 1.0, 1);
        auto state = core::initialState<float>(opts, param.shape);
        const std::vector<core::NamedGradient> grads{{"g", grad}};
        core::runSteps(param, state, opts, grads, nullptr);
        return param.values;
    };
    const auto viaCoo = runWith(core::toLayout(dense, core::Layout::Coo));
    QVERIFY(runWith(core::toLayout(dense, core::Layout::Csr)) == viaCoo);
    QVERIFY(runWith(core::toLayout(dense, core::Layout::Csc)) == viaCoo);
}

void TestOptimizerSemantics::maskedFillOfManyChunksIsAScan()
{
    // 300,000 elements: the fill runs in chunks on every thread. A mask with NaN (held), -0 and
    // 0 (not held), and a gradient storing some of the held elements and some others: the
    // pattern is exactly a one-thread scan's, and a step marks exactly the rows it holds.
    const std::int64_t rows = 30000, width = 10, count = rows * width;
    core::DenseTensor<float> maskValues{{rows, width}, core::Buffer<float>(static_cast<std::size_t>(count), 0.0f)};
    std::vector<std::int64_t> stored;
    for (std::int64_t i = 0; i < count; ++i) {
        const auto h = (i * 2654435761) % 97;
        maskValues.values[static_cast<std::size_t>(i)] = h < 30 ? 1.0f : h < 33 ? std::nanf("") : h < 36 ? -0.0f : 0.0f;
        if (h % 7 == 0 && i < count - width * 4000) // rows at the end stay untouched by the gradient
            stored.push_back(i);
    }
    core::CooTensor<float> coo{{rows, width}, 2, static_cast<std::int64_t>(stored.size()), {}, {}, false};
    coo.indices.resize(2 * stored.size());
    for (std::size_t k = 0; k < stored.size(); ++k) {
        coo.indices[k] = stored[k] / width;
        coo.indices[stored.size() + k] = stored[k] % width;
        coo.values.push_back(static_cast<float>(k) + 0.5f);
    }
    const core::Tensor grad(core::Storage{coo}), mask(core::Storage{maskValues});
    const auto pattern = core::buildUpdatePattern<float>(grad, Semantics::Masked, &mask);

    std::vector<std::int64_t> expectedElements;
    std::vector<float> expectedValues;
    for (std::int64_t i = 0; i < count; ++i) {
        if (maskValues.values[static_cast<std::size_t>(i)] == 0.0f)
            continue;
        expectedElements.push_back(i);
        const auto at = std::lower_bound(stored.begin(), stored.end(), i);
        expectedValues.push_back(at != stored.end() && *at == i ? static_cast<float>(at - stored.begin()) + 0.5f : 0.0f);
    }
    QCOMPARE((std::vector<std::int64_t>(pattern.elements.begin(), pattern.elements.end())), expectedElements);
    QCOMPARE((std::vector<float>(pattern.values.begin(), pattern.values.end())), expectedValues);

    core::DenseTensor<float> param{{rows, width}, core::Buffer<float>(static_cast<std::size_t>(count), 1.0f)};
    auto state = core::initialState<float>(options(core::OptimizerKind::Adagrad, Semantics::Masked), param.shape);
    core::applyStep(param, state, options(core::OptimizerKind::Adagrad, Semantics::Masked), pattern);
    for (std::int64_t r = 0; r < rows; ++r) {
        bool held = false;
        for (std::int64_t j = 0; j < width; ++j)
            held = held || maskValues.values[static_cast<std::size_t>(r * width + j)] != 0.0f;
        QCOMPARE(state.lastUpdate[static_cast<std::size_t>(r)], held ? std::int64_t{1} : std::int64_t{0});
    }
}

void TestOptimizerSemantics::blocksFilledFromAGradientReadWhole()
{
    // Unsorted, with duplicates: (4,1) twice, (0,2) as -0 alone, (5,3) as -0 twice. Densifying
    // adds each to 0, so both zeros come out +0, and so must the filled patterns.
    const core::CooTensor<float> coo{
        {6, 4}, 2, 6, {4, 0, 4, 2, 5, 5, 1, 2, 1, 0, 3, 3}, {1.5f, -0.0f, 2.25f, -3.0f, -0.0f, -0.0f}, false};
    const core::Tensor grad(core::Storage{coo});
    const auto wholeDense = core::buildUpdatePattern<float>(grad, Semantics::Dense, nullptr);
    const auto densified = std::get<core::DenseTensor<float>>(core::toLayout(grad, core::Layout::Dense).storage());
    QCOMPARE(wholeDense.values.size(), densified.values.size());
    QVERIFY(std::memcmp(wholeDense.values.data(), densified.values.data(), densified.values.size() * sizeof(float)) == 0);
    QVERIFY(!std::signbit(wholeDense.values[2]) && !std::signbit(wholeDense.values[23]));

    const auto maskValues = test::randomDense<double>({6, 4}, 0.5, 3);
    const core::Tensor mask(core::Storage{maskValues});
    const auto wholeMasked = core::buildUpdatePattern<float>(grad, Semantics::Masked, &mask);
    const auto denseSource = core::fillSource<float>(grad, Semantics::Dense);
    const auto maskedSource = core::fillSource<float>(grad, Semantics::Masked);
    // Blocks of 2, 1 and 3 rows: each filled from its rows alone, numbered from its first. Each
    // fills the buffers of the last block's pattern (the first, buffers of NaNs larger than it).
    std::vector<float> denseParts, maskedParts;
    std::vector<std::int64_t> maskedElements;
    core::UpdatePattern<float> spareDense, spareMasked;
    for (auto *spare : {&spareDense, &spareMasked}) {
        spare->owned.assign(100, std::numeric_limits<float>::quiet_NaN());
        spare->elements.assign(100, -1);
    }
    for (const auto rows : {core::RowRange{0, 2}, core::RowRange{2, 3}, core::RowRange{3, 6}}) {
        auto dense = core::checkedPatternInRows(denseSource, "g", options(core::OptimizerKind::Adam, Semantics::Dense), nullptr,
                                                1, rows, std::move(spareDense));
        QCOMPARE(dense.firstRow, rows.begin);
        denseParts.insert(denseParts.end(), dense.values.begin(), dense.values.end());
        core::DenseTensor<double> blockMask{{rows.count(), 4}, {}};
        blockMask.values.assign(maskValues.values.begin() + rows.begin * 4, maskValues.values.begin() + rows.end * 4);
        const core::Tensor blockMaskTensor(core::Storage{blockMask});
        auto masked = core::checkedPatternInRows(maskedSource, "g", options(core::OptimizerKind::Adam, Semantics::Masked),
                                                 &blockMaskTensor, 1, rows, std::move(spareMasked));
        for (std::size_t k = 0; k < masked.values.size(); ++k) {
            maskedElements.push_back(masked.elements[k] + rows.begin * 4);
            maskedParts.push_back(masked.values[k]);
        }
        spareDense = std::move(dense);
        spareMasked = std::move(masked);
    }
    QVERIFY(std::memcmp(denseParts.data(), densified.values.data(), densified.values.size() * sizeof(float)) == 0);
    QCOMPARE(maskedElements, (std::vector<std::int64_t>(wholeMasked.elements.begin(), wholeMasked.elements.end())));
    QCOMPARE(maskedParts, (std::vector<float>(wholeMasked.values.begin(), wholeMasked.values.end())));

    // A non-finite value is named by its row in the whole gradient, in the block that holds it.
    const core::CooTensor<float> bad{{6, 4}, 2, 2, {1, 5, 2, 3}, {1.0f, std::numeric_limits<float>::quiet_NaN()}, false};
    const auto badSource = core::fillSource<float>(core::Tensor(core::Storage{bad}), Semantics::Dense);
    const auto dense = options(core::OptimizerKind::Adam, Semantics::Dense);
    core::checkedPatternInRows(badSource, "g", dense, nullptr, 2, core::RowRange{0, 5});
    try {
        core::checkedPatternInRows(badSource, "g", dense, nullptr, 2, core::RowRange{5, 6});
        QFAIL("a NaN was not refused");
    } catch (const core::InputError &error) {
        QVERIFY2(std::string(error.what()).find("g: gradient must be finite, but element (5, 3) is nan at step 2")
                     != std::string::npos,
                 error.what());
    }
}

void TestOptimizerSemantics::maskDecidesNotStorage()
{
    // SGD with weight decay moves an element with a zero gradient: visible proof of a touch.
    core::HyperparameterInput hp;
    hp.lr = 0.5;
    hp.weightDecay = 0.1;
    const auto opts = core::resolveOptions(core::OptimizerKind::Sgd, Semantics::Masked, core::Rule::Torch, hp);
    auto param = test::randomDense<double>({2, 3}, 1.0, 4);
    const auto before = param;
    auto state = core::initialState<double>(opts, param.shape);
    // The gradient stores (0,0)=1 and (1,2)=2; the mask specifies (0,0) and (0,1) only.
    core::CooTensor<double> stored{{2, 3}, 2, 2, {0, 1, 0, 2}, {1.0, 2.0}, true};
    const core::Tensor mask(core::Storage{core::DenseTensor<double>{{2, 3}, {1, 1, 0, 0, 0, 0}}});
    const std::vector<core::NamedGradient> grads{{"g", core::Tensor(core::Storage{stored})}};
    core::runSteps(param, state, opts, grads, &mask);
    QCOMPARE(param.values[0], before.values[0] - 0.5 * (1.0 + 0.1 * before.values[0]));
    QCOMPARE(param.values[1], before.values[1] - 0.5 * (0.0 + 0.1 * before.values[1])); // specified zero
    QCOMPARE(param.values[5], before.values[5]);                                        // stored outside the mask: ignored
    QCOMPARE((std::vector<std::int64_t>(state.lastUpdate.begin(), state.lastUpdate.end())), (std::vector<std::int64_t>{1, 0}));
}

void TestOptimizerSemantics::nanGradientChangesNothing()
{
    const auto opts = options(core::OptimizerKind::Adam, Semantics::Dense);
    auto param = test::randomDense<float>({3, 2}, 1.0, 5);
    const auto before = param;
    auto state = core::initialState<float>(opts, param.shape);
    auto bad = test::randomDense<float>({3, 2}, 1.0, 6);
    bad.values[3] = std::numeric_limits<float>::quiet_NaN();
    const std::vector<core::NamedGradient> grads{{"f.h5:/bad", core::Tensor(core::Storage{bad})}};
    try {
        core::runSteps(param, state, opts, grads, nullptr);
        QFAIL("expected an InputError");
    } catch (const core::InputError &error) {
        QCOMPARE(QString(error.what()),
                 QString("f.h5:/bad: gradient must be finite, but element (1, 1) is nan at step 1; no state was written"));
    }
    QVERIFY(param.values == before.values);
    QCOMPARE(state.step, std::int64_t{0});
}

void TestOptimizerSemantics::ruleRefusalsNameTheRule()
{
    core::HyperparameterInput wd;
    wd.weightDecay = 0.1;
    QVERIFY_THROWS_EXCEPTION(core::InputError,
                             core::resolveOptions(core::OptimizerKind::Adagrad, Semantics::Lazy, core::Rule::Torch, wd));
    QVERIFY_THROWS_EXCEPTION(core::InputError,
                             core::resolveOptions(core::OptimizerKind::Adam, Semantics::Lazy, core::Rule::Torch, wd));
    QVERIFY_THROWS_EXCEPTION(core::InputError,
                             core::resolveOptions(core::OptimizerKind::Adagrad, Semantics::Lazy, core::Rule::Mxnet, wd));
    core::resolveOptions(core::OptimizerKind::Adagrad, Semantics::Masked, core::Rule::Torch, wd); // allowed
    core::HyperparameterInput nesterov;
    nesterov.lr = 0.1;
    nesterov.nesterov = true;
    try {
        core::resolveOptions(core::OptimizerKind::Sgd, Semantics::Dense, core::Rule::Torch, nesterov);
        QFAIL("expected an InputError");
    } catch (const core::InputError &error) {
        QVERIFY(QString(error.what()).contains("nesterov needs momentum > 0"));
    }
}

void TestOptimizerSemantics::divergenceCountsRows()
{
    const auto lazy = options(core::OptimizerKind::Adam, Semantics::Lazy);
    const auto dense = options(core::OptimizerKind::Adam, Semantics::Dense);
    auto p1 = test::randomDense<float>({5, 4}, 1.0, 2);
    auto p2 = p1;
    auto s1 = core::initialState<float>(lazy, p1.shape);
    auto s2 = core::initialState<float>(dense, p2.shape);
    const std::vector<core::NamedGradient> grads{{"g", rowGradient()}, {"g", rowGradient()}};
    core::runSteps(p1, s1, lazy, grads, nullptr);
    core::runSteps(p2, s2, dense, grads, nullptr);
    const auto report = core::compareRuns(p1, s1, p2, s2);
    QCOMPARE(report.front().name, std::string("param"));
    QVERIFY(report.front().maxAbsDiff > 0);
    QCOMPARE(report.back().name, std::string("last_update"));
    QCOMPARE(report.back().differingRows, std::int64_t{3}); // rows 0, 2, 4: dense writes them
}

void TestOptimizerSemantics::comparisonRunsEachSemanticsFromTheSameStart()
{
    // Adam under dense and lazy semantics on one row gradient, twice: the first result is
    // exactly runSteps' and the divergence is exactly compareRuns'.
    core::DenseTensor<float> start{{5, 4}, {}};
    for (int i = 0; i < 20; ++i)
        start.values.push_back(0.1f * static_cast<float>(i) - 1.0f);
    const std::vector<core::NamedGradient> grads{{"g", rowGradient()}, {"g", rowGradient()}};
    core::HyperparameterInput hp;
    hp.lr = 0.1;
    const std::vector<core::Semantics> semantics{core::Semantics::Dense, core::Semantics::Lazy};
    const auto comparison = core::compareSemantics(core::Tensor(core::Storage{start}), grads, nullptr, core::OptimizerKind::Adam,
                                                   core::Rule::Torch, hp, semantics);
    QCOMPARE(comparison.results.size(), std::size_t{2});
    QCOMPARE(comparison.divergence.size(), std::size_t{1});

    std::vector<core::DenseTensor<float>> params;
    std::vector<core::OptimizerState<float>> states;
    for (auto s : semantics) {
        const auto o = core::resolveOptions(core::OptimizerKind::Adam, s, core::Rule::Torch, hp);
        params.push_back(start);
        states.push_back(core::initialState<float>(o, start.shape));
        core::runSteps(params.back(), states.back(), o, grads, nullptr);
    }
    for (std::size_t k = 0; k < 2; ++k) {
        const auto &result = comparison.results[k];
        QVERIFY(result.semantics == semantics[k]);
        QCOMPARE(result.tensors[0].first, std::string("param"));
        for (std::size_t i = 0; i < 20; ++i)
            QCOMPARE(result.tensors[0].second.values[i], static_cast<double>(params[k].values[i]));
        QCOMPARE(result.tensors.size(), 1 + states[k].buffers.size());
        QCOMPARE(result.finalStep, std::int64_t{2});
    }
    const auto expected = core::compareRuns(params[0], states[0], params[1], states[1]);
    QCOMPARE(comparison.divergence[0].size(), expected.size());
    for (std::size_t t = 0; t < expected.size(); ++t) {
        QCOMPARE(comparison.divergence[0][t].name, expected[t].name);
        QCOMPARE(comparison.divergence[0][t].maxAbsDiff, expected[t].maxAbsDiff);
        QCOMPARE(comparison.divergence[0][t].differingRows, expected[t].differingRows);
    }
    // Rows 0, 2 and 4 never get a gradient: their moments stay 0 under both semantics, so
    // only the touched rows 1 and 3 can differ (the bias correction's step count).
    QVERIFY(comparison.divergence[0][0].differingRows <= 2);
    for (std::size_t row : {std::size_t{0}, std::size_t{2}, std::size_t{4}})
        for (std::size_t c = 0; c < 4; ++c)
            QCOMPARE(comparison.results[1].tensors[0].second.values[4 * row + c], static_cast<double>(start.values[4 * row + c]));
}

void TestOptimizerSemantics::comparisonNamesTheRefusingSemantics()
{
    core::DenseTensor<float> start{{5, 4}, core::Buffer<float>(20, 1.0f)};
    const std::vector<core::NamedGradient> grads{{"g", rowGradient()}};
    core::HyperparameterInput hp;
    hp.weightDecay = 0.01; // torch's SparseAdam refuses weight decay
    const std::vector<core::Semantics> semantics{core::Semantics::Dense, core::Semantics::Lazy};
    try {
        core::compareSemantics(core::Tensor(core::Storage{start}), grads, nullptr, core::OptimizerKind::Adam, core::Rule::Torch,
                               hp, semantics);
        QFAIL("lazy Adam with weight decay was accepted");
    } catch (const core::InputError &error) {
        QVERIFY2(std::string(error.what()).find("lazy semantics") != std::string::npos, error.what());
    }
}

QTEST_GUILESS_MAIN(TestOptimizerSemantics)
#include "tst_optimizer_semantics.moc"
