// gradcheck: the instructive case (docs/SEMANTICS.md) with all three outcomes and the report's reasons,
// every op's backward against central differences, and masked inputs.
#include "core/autograd/gradcheck.h"
#include "core/expr/evaluator.h"
#include "core/masked/softmax_kernel.h"
#include "core/tensor/tensor_ops.h"
#include "test_tensors.h"

#include <QScopeGuard>
#include <QTest>
#include <cstring>
#include <functional>
#include <limits>
#include <omp.h>

using namespace sparsity;

class TestGradcheck : public QObject {
    Q_OBJECT

private slots:
    void instructiveCaseNonMaskedFails();
    void instructiveCaseMaskedFails();
    void instructiveCaseMaskedPassesWithSparseMask();
    void everyBackwardMatchesCentralDifferences_data();
    void everyBackwardMatchesCentralDifferences();
    void maskedInputsKeepMaskedGradients_data();
    void maskedInputsKeepMaskedGradients();
    void fastModeAgreesAndCatchesAWrongBackward();
    void jacobianLayoutIsInputRowsOutputColumns();
    void progressCountsEveryRowAndCancelStops();
    void perturbedEvaluationsKeepTheirBits_data();
    void perturbedEvaluationsKeepTheirBits();
    void softmaxTakesTheBaselinesUnchangedLanes();
};

namespace {

// What the report must say about the instructive case's sparse_mm uses.
constexpr const char *kSparseMmProjects =
    "sparse_mm's backward projects each sparse operand's gradient onto that operand's own pattern";

core::Tensor denseTensor(core::Shape shape, std::vector<double> values)
{
    return core::Tensor(
        core::Storage{core::DenseTensor<double>{std::move(shape), core::Buffer<double>(values.begin(), values.end())}});
}

// x = [[0, 1], [2, 3]] as sparse COO: x[0, 0] is not stored (unspecified).
std::vector<core::NamedTensor> instructiveInputs()
{
    const auto x = core::toLayout(denseTensor({2, 2}, {0, 1, 2, 3}), core::Layout::Coo);
    return {{"x", x, false}, {"m", denseTensor({2, 2}, {0, 1, 1, 1}), true}};
}

core::GradcheckReport
check(const std::string &expression, const std::vector<core::NamedTensor> &inputs, bool masked, bool fast = false)
{
    core::GradcheckOptions options;
    options.masked = masked;
    options.fast = fast;
    const auto parsed = core::parseExpression(expression);
    return core::gradcheck(*parsed, expression, inputs, options);
}

std::string allExplanations(const core::InputJacobian &j)
{
    std::string text;
    for (const auto &line : j.explanations)
        text += line + "\n";
    return text;
}

} // namespace

void TestGradcheck::instructiveCaseNonMaskedFails()
{
    const auto report = check("mm(sparse_mm(x, x), x)", instructiveInputs(), false);
    QVERIFY(!report.passed);
    const auto &j = report.inputs.at(0);
    QCOMPARE(j.rows, std::int64_t{4});
    QCOMPARE(j.cols, std::int64_t{4});
    for (const auto &m : j.mismatches)
        QCOMPARE(m[0], std::int64_t{0}); // only x[0, 0]'s row differs
    const std::string why = allExplanations(j);
    QVERIFY2(why.find("x[0, 0] is unspecified; non-masked gradcheck perturbs it") != std::string::npos, why.c_str());
    QVERIFY2(why.find("masked backward of sparse_mm operand 1 and sparse_mm operand 2") != std::string::npos, why.c_str());
    // The why: sparse_mm projects both operands' gradients, so only mm's backward reaches x[0, 0].
    QVERIFY2(why.find(kSparseMmProjects) != std::string::npos, why.c_str());
    QVERIFY2(why.find("only the non-masked backward of mm operand 2 reaches x[0, 0]") != std::string::npos, why.c_str());
}

void TestGradcheck::instructiveCaseMaskedFails()
{
    const auto report = check("mm(sparse_mm(x, x), x)", instructiveInputs(), true);
    QVERIFY(!report.passed);
    const auto &j = report.inputs.at(0);
    for (std::int64_t c = 0; c < j.cols; ++c)
        QCOMPARE(j.numerical[static_cast<std::size_t>(c)], 0.0); // x[0, 0] is not perturbed
    const std::string why = allExplanations(j);
    QVERIFY2(why.find("masked gradcheck does not perturb it") != std::string::npos, why.c_str());
    // Only mm's (non-masked) backward reaches x[0, 0]: sparse_mm projects both operands' gradients.
    QVERIFY2(why.find("non-masked backward of mm operand 2 gives it a gradient") != std::string::npos, why.c_str());
    QVERIFY2(why.find(kSparseMmProjects) != std::string::npos, why.c_str());
    QVERIFY2(why.find("so only that backward reaches x[0, 0]") != std::string::npos, why.c_str());
    QVERIFY2(why.find("sparse_mm operand 2 and") == std::string::npos, why.c_str());
}

void TestGradcheck::instructiveCaseMaskedPassesWithSparseMask()
{
    const auto report =
        check("mm(sparse_mm(sparse_mask(x, m), sparse_mask(x, m)), sparse_mask(x, m))", instructiveInputs(), true);
    QVERIFY(report.passed);
    QCOMPARE(report.inputs.size(), std::size_t{1}); // m is a bool mask: no Jacobian
    for (const auto &use : report.inputs[0].uses)
        QVERIFY2(use.find("masked backward") != std::string::npos, use.c_str());
}

void TestGradcheck::everyBackwardMatchesCentralDifferences_data()
{
    QTest::addColumn<QString>("expression");
    for (const char *e : {"-x",
                          "abs(x)",
                          "sqrt(p)",
                          "rsqrt(p)",
                          "square(x)",
                          "exp(x)",
                          "log(p)",
                          "sign(x) * x",
                          "x + y",
                          "x - y",
                          "x * y",
                          "x / p",
                          "maximum(x, y)",
                          "minimum(x, y)",
                          "pow(p, 2.5)",
                          "pow(p, y)",
                          "clamp(x, -0.5, 0.5)",
                          "where(c, x, y)",
                          "x * 2 - 3 / p",
                          "sum(x)",
                          "sum(x * y, 1)",
                          "mean(x, 0)",
                          "amax(x, 1)",
                          "amin(x)",
                          "norm(x, 1)",
                          "norm(x)",
                          "softmax(x, 1)",
                          "log_softmax(x, 0)",
                          "softmax(x, -1)",
                          "mm(x, transpose)",
                          "sum(softmax(mm(x, w), 1) * y)",
                          "to_dense(to_sparse(x))",
                          "data(x) + 1"})
        QTest::newRow(e) << QString(e);
}

void TestGradcheck::everyBackwardMatchesCentralDifferences()
{
    QFETCH(QString, expression);
    const auto x = test::randomDense<double>({3, 4}, 1.0, 11);
    const auto y = test::randomDense<double>({3, 4}, 1.0, 12);
    auto p = test::randomDense<double>({3, 4}, 1.0, 13);
    for (auto &v : p.values)
        v = std::abs(v) + 0.5;
    std::vector<core::NamedTensor> inputs{
        {"x", core::Tensor(core::Storage{x}), false},
        {"y", core::Tensor(core::Storage{y}), false},
        {"p", core::Tensor(core::Storage{p}), false},
        {"c", denseTensor({3, 4}, {1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1}), true},
        {"w", core::Tensor(core::Storage{test::randomDense<double>({4, 4}, 1.0, 14)}), false},
        {"transpose", core::Tensor(core::Storage{test::randomDense<double>({4, 3}, 1.0, 15)}), false},
    };
    const auto report = check(expression.toStdString(), inputs, false);
    for (const auto &j : report.inputs)
        QVERIFY2(j.mismatches.empty(), qPrintable(QStringLiteral("%1: %2 mismatches, max |diff| %3")
                                                      .arg(QString::fromStdString(j.name))
                                                      .arg(j.mismatches.size())
                                                      .arg(j.maxAbsDiff)));
    QVERIFY(report.passed);
}

void TestGradcheck::maskedInputsKeepMaskedGradients_data()
{
    QTest::addColumn<QString>("expression");
    for (const char *e :
         {"sum(masked(x, m) * y, 1)", "softmax(masked(x, m), 1)", "mean(masked(x, m), 0)", "amax(masked(x, m), 1)",
          "log_softmax(masked(x, m), 0) * 2", "mm(masked(x, m), w)", "sparse_mm(to_sparse(masked(x, m)), w)"})
        QTest::newRow(e) << QString(e);
}

void TestGradcheck::maskedInputsKeepMaskedGradients()
{
    QFETCH(QString, expression);
    const std::vector<core::NamedTensor> inputs{
        {"x", core::Tensor(core::Storage{test::randomDense<double>({3, 4}, 1.0, 21)}), false},
        {"y", core::Tensor(core::Storage{test::randomDense<double>({3, 4}, 1.0, 22)}), false},
        {"m", denseTensor({3, 4}, {1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0}), true}, // row 2 unspecified
        {"w", core::Tensor(core::Storage{test::randomDense<double>({4, 2}, 1.0, 23)}), false},
    };
    const auto report = check(expression.toStdString(), inputs, true);
    QVERIFY(report.passed);
    // x's unspecified elements have zero rows on both sides.
    const auto &j = report.inputs.at(0);
    QCOMPARE(j.name, std::string("x"));
    for (std::int64_t c = 0; c < j.cols; ++c)
        QCOMPARE(j.analytical[static_cast<std::size_t>(1 * j.cols + c)], 0.0); // x[0, 1]
}

void TestGradcheck::fastModeAgreesAndCatchesAWrongBackward()
{
    const std::vector<core::NamedTensor> inputs{
        {"x", core::Tensor(core::Storage{test::randomDense<double>({16, 16}, 1.0, 31)}), false},
        {"w", core::Tensor(core::Storage{test::randomDense<double>({16, 16}, 1.0, 32)}), false},
    };
    const auto report = check("softmax(mm(x, w), 1)", inputs, false, true);
    QVERIFY(report.passed);
    QCOMPARE(report.inputs.at(0).rows, std::int64_t{1});
    // The instructive case fails in fast mode too (its projection includes x[0, 0]).
    QVERIFY(!check("mm(sparse_mm(x, x), x)", instructiveInputs(), false, true).passed);
    // A softmax of an input itself: the recorded evaluation holds that input, so a perturbation
    // made in it, not in a copy, would look unchanged to evaluateNear (a projection of 0).
    for (const char *e : {"softmax(x, 1)", "log_softmax(x, 0)"}) {
        const auto direct = check(e, inputs, false, true);
        QVERIFY2(direct.passed, e);
        QVERIFY2(direct.inputs.at(0).numerical[0] != 0.0, e);
    }
}

void TestGradcheck::jacobianLayoutIsInputRowsOutputColumns()
{
    // f(x) = 2 * x[...] for a [2] input into a [2] output, plus a sum that mixes them.
    const auto report = check("x * 2 + sum(x)", {{"x", denseTensor({2}, {1, 2}), false}}, false);
    const auto &j = report.inputs.at(0);
    QCOMPARE(j.analytical, (core::Buffer<double>{3, 1, 1, 3}));
    for (std::size_t i = 0; i < 4; ++i)
        QVERIFY(std::abs(j.numerical[i] - j.analytical[i]) < 1e-8);
}

void TestGradcheck::progressCountsEveryRowAndCancelStops()
{
    // x [16 x 16], w [16 x 16] -> 256 outputs: 16 backward batches of 16 seeds (16 units each),
    // then 256 + 256 perturbed rows.
    // On one thread: only thread 0 reports, so with two, which counts are reported (and when a
    // refusal lands) depends on how the rows fall between the threads; on a machine busy with
    // the MPI tests, this test failed once that way.
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const auto restore = qScopeGuard([threads] { omp_set_num_threads(threads); });
    const std::vector<core::NamedTensor> inputs{
        {"x", core::Tensor(core::Storage{test::randomDense<double>({16, 16}, 1.0, 41)}), false},
        {"w", core::Tensor(core::Storage{test::randomDense<double>({16, 16}, 1.0, 42)}), false},
    };
    const std::string expression = "softmax(mm(x, w), 1)";
    const auto parsed = core::parseExpression(expression);
    std::vector<std::pair<std::int64_t, std::int64_t>> reports;
    const auto report = core::gradcheck(*parsed, expression, inputs, {}, [&](std::int64_t done, std::int64_t total) {
        reports.emplace_back(done, total);
        return true;
    });
    QVERIFY(report.passed);
    QVERIFY(reports.size() >= 3);
    QCOMPARE(reports.front(), (std::pair<std::int64_t, std::int64_t>{0, 256 + 512}));
    QCOMPARE(reports.at(1).first, std::int64_t{16}); // the first backward batch of 16 seeds
    for (std::size_t k = 1; k < reports.size(); ++k) {
        QVERIFY(reports[k].first > reports[k - 1].first);
        QCOMPARE(reports[k].second, std::int64_t{768});
    }
    QVERIFY(reports.back().first <= 768);

    // Refusing midway (after the backward passes, among the perturbed rows) stops the check.
    std::int64_t calls = 0, lastDone = 0;
    const auto cancelAfterSixRows = [&](std::int64_t done, std::int64_t) {
        lastDone = done;
        ++calls;
        return done < 256 + 6;
    };
    QVERIFY_THROWS_EXCEPTION(core::Cancelled, core::gradcheck(*parsed, expression, inputs, {}, cancelAfterSixRows));
    QCOMPARE(calls, std::int64_t{1 + 16 + 6}); // the start, 16 backward batches, 6 rows
    QCOMPARE(lastDone, std::int64_t{256 + 6});
    // Fast mode counts one projection per input.
    core::GradcheckOptions fast;
    fast.fast = true;
    std::int64_t fastTotal = 0;
    core::gradcheck(*parsed, expression, inputs, fast, [&](std::int64_t, std::int64_t total) {
        fastTotal = total;
        return true;
    });
    QCOMPARE(fastTotal, std::int64_t{2});
}

void TestGradcheck::perturbedEvaluationsKeepTheirBits_data()
{
    QTest::addColumn<QString>("expression");
    for (const char *e : {"softmax(mm(x, w), 1)", "log_softmax(x * 2, 0)", "softmax(masked(x, m), 1)",
                          "log_softmax(masked(x, m), 0)", "softmax(x, 1) + softmax(mm(x, w), -1)"})
        QTest::newRow(e) << QString(e);
}

// gradcheck's perturbed evaluations take the softmax lanes that a perturbation leaves unchanged
// from the recorded evaluation (core::evaluateNear). Each must equal the plain evaluation, bit for
// bit: with nothing perturbed, one element, a whole row, a NaN, a -0 for a +0, and a changed mask.
void TestGradcheck::perturbedEvaluationsKeepTheirBits()
{
    QFETCH(QString, expression);
    const auto source = expression.toStdString();
    const auto parsed = core::parseExpression(source);
    auto x = test::randomDense<double>({37, 24}, 1.0, 31);
    x.values[5] = 0.0;
    auto m = core::makeDense<double>({37, 24});
    for (std::size_t i = 0; i < m.values.size(); ++i)
        m.values[i] = (i * 7) % 5 != 0 ? 1.0 : 0.0;
    const auto w = test::randomDense<double>({24, 24}, 1.0, 32);
    const auto inputsWith = [&](const core::DenseTensor<double> &xValue, const core::DenseTensor<double> &mValue) {
        return core::makeEvalInputs({{"x", core::Tensor(core::Storage{xValue}), false},
                                     {"m", core::Tensor(core::Storage{mValue}), true},
                                     {"w", core::Tensor(core::Storage{w}), false}},
                                    true);
    };
    core::Tape tape;
    core::evaluateRecorded(*parsed, source, inputsWith(x, m), tape);

    using Change = std::function<void(core::DenseTensor<double> &, core::DenseTensor<double> &)>;
    const std::vector<std::pair<const char *, Change>> changes{
        {"nothing", [](auto &, auto &) {}},
        {"one element", [](auto &xs, auto &) { xs.values[30] += 1e-6; }},
        {"a row",
         [](auto &xs, auto &) {
             for (std::size_t c = 0; c < 24; ++c)
                 xs.values[2 * 24 + c] -= 1e-6;
         }},
        {"a NaN", [](auto &xs, auto &) { xs.values[40] = std::numeric_limits<double>::quiet_NaN(); }},
        {"-0 for +0", [](auto &xs, auto &) { xs.values[5] = -0.0; }},
        {"the mask", [](auto &, auto &ms) { ms.values[3] = 1.0 - ms.values[3]; }},
    };
    for (const auto &[what, change] : changes) {
        auto xs = x;
        auto ms = m;
        change(xs, ms);
        const auto inputs = inputsWith(xs, ms);
        const auto plain = std::get<core::MaskedValue<double>>(core::evaluateExpression(*parsed, source, inputs));
        const auto near = core::evaluateNear(*parsed, source, inputs, tape);
        QVERIFY2(plain.shape == near.shape, what);
        QVERIFY2(std::memcmp(plain.values.data(), near.values.data(), plain.values.size() * sizeof(double)) == 0, what);
        QVERIFY2(!plain.mask == !near.mask && (!plain.mask || *plain.mask == *near.mask), what);
    }
}

// The reuse itself: a baseline whose result is a sentinel, not its input's softmax. The lanes
// of the new input equal to the baseline's take the sentinel; the lane that differs is computed,
// as without a baseline. Over dim 1 the lanes are rows, over dim 0 (strided) columns.
void TestGradcheck::softmaxTakesTheBaselinesUnchangedLanes()
{
    core::MaskedValue<double> before;
    before.shape = {3, 4};
    before.values.assign({0.5, -1, 2, 0.25, 1, 3, -2, 0, 0.75, 1.5, -0.5, 2.5});
    auto after = before;
    after.values[5] += 1.0; // row 1, column 1
    auto sentinel = before;
    std::fill(sentinel.values.begin(), sentinel.values.end(), 42.0);
    const core::SoftmaxBaseline<double> baseline{before, sentinel};
    for (const int dim : {1, 0}) {
        const auto reused = core::softmax(after, dim, false, &baseline);
        const auto plain = core::softmax(after, dim, false);
        for (std::size_t i = 0; i < after.values.size(); ++i) {
            const bool changedLane = dim == 1 ? i / 4 == 1 : i % 4 == 1;
            QCOMPARE(reused.values[i], changedLane ? plain.values[i] : 42.0);
        }
    }
}

QTEST_APPLESS_MAIN(TestGradcheck)
#include "tst_gradcheck.moc"
