// Masked semantics where torch.masked has no answer (our definitions, docs/SEMANTICS.md) and the fused
// kernels against a naive oracle on shapes that cross block boundaries.
#include "core/expr/evaluator.h"
#include "core/masked/mask_algebra.h"
#include "test_tensors.h"

#include <QTest>
#include <cmath>
#include <limits>

using namespace sparsity;

class TestMaskedSemantics : public QObject {
    Q_OBJECT

private slots:
    void fusedReductionsEqualNaiveOracle_data();
    void fusedReductionsEqualNaiveOracle();
    void amaxPropagatesNaNButIgnoresUnspecifiedNaN();
    void maskedProductSumsBothSpecifiedTerms();
    void sparseProductHasStructuralPattern();
    void whereTakesTheChosenOperandsMask();
    void layoutFunctionsChangeStorageNotValues();
    void intersectPolicyCombinesMasks();
    void mixedPrecisionComputesInDouble();
    void printsScalarsAndNestedTensors();
    void refusesMisuse_data();
    void refusesMisuse();
};

namespace {

core::Tensor masked(core::DenseTensor<float> data, core::Mask mask)
{
    return core::Tensor(core::Storage{std::move(data)}, std::move(mask));
}

core::DenseTensor<float> dense(core::Shape shape, std::vector<float> values)
{
    return {std::move(shape), core::Buffer<float>(values.begin(), values.end())};
}

core::MaskedValue<float> eval(const std::string &expression,
                              const std::vector<core::NamedTensor> &tensors,
                              core::MaskPolicy policy = core::MaskPolicy::Strict)
{
    const auto parsed = core::parseExpression(expression);
    return std::get<core::MaskedValue<float>>(
        core::evaluateExpression(*parsed, expression, core::makeEvalInputs(tensors), policy));
}

// The reduction the slow, obvious way, in double.
double naiveReduce(const std::string &op, const std::vector<double> &values)
{
    if (op == "amax" || op == "amin") {
        double r = op == "amax" ? -INFINITY : INFINITY;
        for (double v : values)
            r = op == "amax" ? std::max(r, v) : std::min(r, v);
        return r;
    }
    double s = 0.0;
    for (double v : values)
        s += op == "norm" ? v * v : v;
    if (op == "mean")
        return s / static_cast<double>(values.size());
    return op == "norm" ? std::sqrt(s) : s;
}

} // namespace

void TestMaskedSemantics::fusedReductionsEqualNaiveOracle_data()
{
    QTest::addColumn<QString>("op");
    QTest::addColumn<int>("dim"); // -1: all dims
    QTest::addColumn<bool>("isMasked");
    QTest::addColumn<bool>("tall"); // 50000 x 3 x 1: many slabs of 3, shared by the threads in runs
    for (const char *op : {"sum", "mean", "amax", "amin", "norm"})
        for (int dim : {-1, 0, 1, 2})
            for (bool isMasked : {false, true})
                for (bool tall : {false, true})
                    if (!tall || dim == 1)
                        QTest::newRow(qPrintable(QStringLiteral("%1 dim %2 %3%4")
                                                     .arg(op)
                                                     .arg(dim)
                                                     .arg(isMasked ? "masked" : "plain")
                                                     .arg(tall ? " tall" : "")))
                            << QString(op) << dim << isMasked << tall;
}

void TestMaskedSemantics::fusedReductionsEqualNaiveOracle()
{
    QFETCH(QString, op);
    QFETCH(int, dim);
    QFETCH(bool, isMasked);
    QFETCH(bool, tall);
    // 3 x 1500 x 7: slabs span several 1024-element blocks and blocks wrap the inner dim.
    const core::Shape shape = tall ? core::Shape{50000, 3, 1} : core::Shape{3, 1500, 7};
    const auto x = test::randomDense<float>(shape, 0.9, 7);
    const auto mask = test::randomMask(x.values.size(), 0.3, 8);
    const core::Tensor input = isMasked ? masked(x, mask) : core::Tensor(core::Storage{x});
    const std::string expression = op.toStdString() + "(x * 2 - 1" + (dim >= 0 ? ", " + std::to_string(dim) : "") + ")";
    const auto result = eval(expression, {{"x", input}});

    const std::int64_t outer = dim < 0 ? 1 : core::numel(shape, 0, static_cast<std::size_t>(dim));
    const std::int64_t n = dim < 0 ? core::numel(shape) : shape[static_cast<std::size_t>(dim)];
    const std::int64_t inner = dim < 0 ? 1 : core::numel(shape, static_cast<std::size_t>(dim) + 1, shape.size());
    QCOMPARE(result.numel(), outer * inner);
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
            std::vector<double> values;
            for (std::int64_t j = 0; j < n; ++j) {
                const auto k = static_cast<std::size_t>((o * n + j) * inner + i);
                if (!isMasked || mask[k])
                    values.push_back(static_cast<double>(x.values[k] * 2.0f - 1.0f));
            }
            const std::int64_t r = o * inner + i;
            QCOMPARE(result.specified(r), !values.empty());
            if (values.empty())
                continue;
            const double expected = naiveReduce(op.toStdString(), values);
            const double ours = static_cast<double>(result.values[static_cast<std::size_t>(r)]);
            QVERIFY2(std::abs(ours - expected) <= 2e-6 * (1.0 + std::abs(expected)),
                     qPrintable(QStringLiteral("out[%1] = %2, oracle %3").arg(r).arg(ours).arg(expected)));
        }
}

void TestMaskedSemantics::amaxPropagatesNaNButIgnoresUnspecifiedNaN()
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto x = dense({2, 3}, {1, nan, 3, 4, 5, 6});
    const auto plain = eval("amax(x, 1)", {{"x", core::Tensor(core::Storage{x})}});
    QVERIFY(std::isnan(plain.values[0]));
    QCOMPARE(plain.values[1], 6.0f);
    const auto ignored = eval("amax(x, 1)", {{"x", masked(x, {1, 0, 1, 1, 1, 1})}});
    QCOMPARE(ignored.values[0], 3.0f);
}

void TestMaskedSemantics::maskedProductSumsBothSpecifiedTerms()
{
    // a = [[1, --], [--, --]], b = [[10, 20], [30, 40]] (b[1,1] unspecified).
    const auto a = masked(dense({2, 2}, {1, 2, 3, 4}), {1, 0, 0, 0});
    const auto b = masked(dense({2, 2}, {10, 20, 30, 40}), {1, 1, 1, 0});
    const auto c = eval("mm(a, b)", {{"a", a}, {"b", b}});
    QCOMPARE(c.kind, core::ValueKind::Masked);
    QCOMPARE(c.values[0], 10.0f); // 1*10 (a[0,1] unspecified: its term is left out)
    QCOMPARE(c.values[1], 20.0f);
    QVERIFY(c.specified(0) && c.specified(1));
    QVERIFY(!c.specified(2) && !c.specified(3)); // row 1 of a has nothing specified
}

void TestMaskedSemantics::sparseProductHasStructuralPattern()
{
    // Pattern of a: (0,0), (1,1); of b: (0,1). a*b is structurally nonzero only at (0,1).
    core::Tensor a(core::Storage{dense({2, 2}, {2, 0, 0, 3})});
    core::Tensor b(core::Storage{dense({2, 2}, {0, 5, 0, 0})});
    const auto c = eval("sparse_mm(to_sparse(a), to_sparse(b))", {{"a", a}, {"b", b}});
    QCOMPARE(c.kind, core::ValueKind::Sparse);
    QCOMPARE(c.storage, core::Layout::Coo);
    QCOMPARE(core::specifiedCount(c), std::int64_t{1});
    QVERIFY(c.specified(1));
    QCOMPARE(c.values[1], 10.0f);
    const auto plain = eval("sparse_mm(to_sparse(a), b)", {{"a", a}, {"b", b}});
    QCOMPARE(plain.kind, core::ValueKind::Plain);
}

void TestMaskedSemantics::whereTakesTheChosenOperandsMask()
{
    core::Tensor condition(core::Storage{dense({4}, {1, 1, 0, 0})});
    const auto x = masked(dense({4}, {1, 2, 3, 4}), {1, 0, 1, 0});
    const auto y = masked(dense({4}, {5, 6, 7, 8}), {0, 1, 0, 1});
    const auto r = eval("where(c, x, y)", {{"c", condition}, {"x", x}, {"y", y}});
    QCOMPARE(core::formatValue(r), std::string("[1.0000, --, --, 8.0000]"));
}

void TestMaskedSemantics::layoutFunctionsChangeStorageNotValues()
{
    const auto x = masked(dense({2, 2}, {1, 2, 3, 4}), {1, 0, 0, 1});
    const auto sparse = eval("to_sparse(x)", {{"x", x}});
    QCOMPARE(sparse.storage, core::Layout::Coo);
    QCOMPARE(sparse.kind, core::ValueKind::Masked);
    const auto back = eval("to_dense(to_sparse(x), 1)", {{"x", x}});
    QCOMPARE(back.storage, core::Layout::Dense);
    QCOMPARE(core::formatValue(back), core::formatValue(eval("x", {{"x", x}})));
    // A plain sparse value densifies to a plain dense one; unstored elements are 0.
    const auto plain = eval("to_dense(to_sparse(p))", {{"p", core::Tensor(core::Storage{dense({3}, {0, 2, 0})})}});
    QCOMPARE(plain.kind, core::ValueKind::Plain);
    QCOMPARE(core::formatValue(plain), std::string("[0.0000, 2.0000, 0.0000]"));
}

void TestMaskedSemantics::intersectPolicyCombinesMasks()
{
    const auto a = masked(dense({3}, {1, 2, 3}), {1, 1, 0});
    const auto b = masked(dense({3}, {10, 20, 30}), {0, 1, 1});
    QVERIFY_THROWS_EXCEPTION(core::InputError, eval("a + b", {{"a", a}, {"b", b}}));
    const auto policy = eval("a + b", {{"a", a}, {"b", b}}, core::MaskPolicy::Intersect);
    QCOMPARE(core::formatValue(policy), std::string("[--, 22.0000, --]"));
    const auto function = eval("intersect(a, b) + intersect(b, a)", {{"a", a}, {"b", b}});
    QCOMPARE(core::formatValue(function), core::formatValue(policy));
}

void TestMaskedSemantics::mixedPrecisionComputesInDouble()
{
    core::Tensor f(core::Storage{dense({2}, {1, 2})});
    core::Tensor d(core::Storage{core::DenseTensor<double>{{2}, {0.1, 0.2}}});
    const auto parsed = core::parseExpression("f + d");
    const auto result = core::evaluateExpression(*parsed, "f + d", core::makeEvalInputs({{"f", f}, {"d", d}}));
    const auto *value = std::get_if<core::MaskedValue<double>>(&result);
    QVERIFY(value);
    QCOMPARE(value->values[0], 1.1);
}

void TestMaskedSemantics::printsScalarsAndNestedTensors()
{
    const auto x = masked(dense({2, 1, 2}, {1, 2, 3, 4}), {1, 0, 0, 1});
    QCOMPARE(core::formatValue(eval("x", {{"x", x}})), std::string("[[[1.0000, --]], [[--, 4.0000]]]"));
    QCOMPARE(core::formatValue(eval("sum(x)", {{"x", x}})), std::string("5.0000"));
    QCOMPARE(core::formatValue(eval("sum(x * 0 + 1)", {{"x", masked(dense({2}, {1, 2}), {0, 0})}})), std::string("--"));
    // A masked scalar broadcasts as a scalar: specified, it keeps the tensor's mask.
    QCOMPARE(core::formatValue(eval("x - sum(x)", {{"x", x}})), std::string("[[[-4.0000, --]], [[--, -1.0000]]]"));
    const auto none = masked(dense({2}, {1, 2}), {0, 0});
    QCOMPARE(core::formatValue(eval("x + sum(n)", {{"x", masked(dense({2}, {1, 2}), {1, 1})}, {"n", none}})),
             std::string("[--, --]"));
}

void TestMaskedSemantics::refusesMisuse_data()
{
    QTest::addColumn<QString>("expression");
    QTest::addColumn<QString>("message");
    QTest::newRow("dim not a literal") << "sum(x, x)"
                                       << "column 8: sum: the dim must be an integer literal";
    QTest::newRow("dim not an integer") << "softmax(x, 1.5)"
                                        << "column 12: softmax: the dim must be an integer literal";
    QTest::newRow("masked condition") << "where(m, x, x)"
                                      << "where: the condition must be a plain (unmasked) tensor";
    QTest::newRow("masked_grad flag") << "to_dense(x, 2)"
                                      << "column 13: to_dense: masked_grad must be 0 or 1";
    QTest::newRow("mask of numbers") << "masked(x, p)"
                                     << "masked's second operand must be sparse, masked or bool";
    QTest::newRow("amax of nothing") << "amax(e)"
                                     << "amax over zero elements has no value";
    QTest::newRow("mm of 1-d") << "mm(sum(p, 0), p)"
                               << "mm: needs 2-d operands, but got [2] and [2, 2]";
    QTest::newRow("to_sparse of a scalar") << "to_sparse(sum(p))"
                                           << "to_sparse: a 0-d value has no sparse layout";
}

void TestMaskedSemantics::refusesMisuse()
{
    QFETCH(QString, expression);
    QFETCH(QString, message);
    const std::vector<core::NamedTensor> inputs{
        {"x", masked(dense({2, 2}, {1, 2, 3, 4}), {1, 0, 1, 1})},
        {"m", masked(dense({2, 2}, {1, 0, 1, 0}), {1, 1, 1, 1})},
        {"p", core::Tensor(core::Storage{dense({2, 2}, {1, 2, 3, 4})})},
        {"e", core::Tensor(core::Storage{dense({0}, {})})},
    };
    try {
        eval(expression.toStdString(), inputs);
        QFAIL("no error");
    } catch (const core::InputError &error) {
        QVERIFY2(QString(error.what()).contains(message), error.what());
    }
}

QTEST_APPLESS_MAIN(TestMaskedSemantics)
#include "tst_masked_semantics.moc"
