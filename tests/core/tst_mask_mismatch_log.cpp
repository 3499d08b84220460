// A streamed evaluation's differing masks reported as the whole evaluation reports them
// (core/pipeline/mask_mismatch_log.h): the whole tensors evaluated at once, and the same
// tensors cut into blocks of rows of every size, each block evaluated alone and its failure
// noted, give one message. And an elementwise result's bits do not depend on where the
// element lies in its block (exp and log through Eigen's packets only).
#include "core/expr/evaluator.h"
#include "core/expr/mask_mismatch.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/mask_mismatch_log.h"

#include <QTest>
#include <bit>
#include <random>

using namespace sparsity;

class TestMaskMismatchLog : public QObject {
    Q_OBJECT

private slots:
    void blocksReportTheWholeDifference_data();
    void blocksReportTheWholeDifference();
    void elementwiseBitsDoNotDependOnTheBlock();
};

namespace {

constexpr std::int64_t kRows = 37, kColumns = 5;

// A masked [kRows, kColumns] float tensor whose mask is `base` with the listed elements flipped.
core::Tensor maskedTensor(const std::vector<std::uint8_t> &base, const std::vector<std::int64_t> &flipped, unsigned seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> value;
    core::DenseTensor<float> data{{kRows, kColumns}, {}};
    for (std::int64_t i = 0; i < kRows * kColumns; ++i)
        data.values.push_back(value(rng));
    core::Tensor tensor(core::Storage{std::move(data)});
    core::Mask mask(base.begin(), base.end());
    for (const auto i : flipped)
        mask[static_cast<std::size_t>(i)] ^= 1;
    tensor.setMask(mask);
    return tensor;
}

// Rows [first, end) of a dense masked tensor.
core::Tensor rowsOf(const core::Tensor &tensor, std::int64_t first, std::int64_t end)
{
    const auto &dense = std::get<core::DenseTensor<float>>(tensor.storage());
    core::DenseTensor<float> part{{end - first, kColumns}, {}};
    part.values.assign(dense.values.begin() + first * kColumns, dense.values.begin() + end * kColumns);
    core::Tensor block(core::Storage{std::move(part)});
    const auto &mask = *tensor.mask();
    block.setMask(core::Mask(mask.begin() + first * kColumns, mask.begin() + end * kColumns));
    return block;
}

std::string
wholeError(const core::Expression &expression, const std::string &source, const std::vector<core::NamedTensor> &inputs)
{
    try {
        core::evaluateExpression(expression, source, core::makeEvalInputs(inputs, expression));
    } catch (const core::InputError &error) {
        return error.what();
    }
    return {};
}

std::string streamedError(const core::Expression &expression,
                          const std::string &source,
                          const std::vector<core::NamedTensor> &inputs,
                          std::int64_t blockRows)
{
    core::MaskMismatchLog log(expression, source);
    for (std::int64_t first = 0; first < kRows; first += blockRows) {
        const auto end = std::min(kRows, first + blockRows);
        std::vector<core::NamedTensor> block;
        for (const auto &input : inputs)
            block.push_back({input.name, rowsOf(input.tensor, first, end), false});
        try {
            core::evaluateExpression(expression, source, core::makeEvalInputs(block, expression));
        } catch (const core::MaskMismatch &mismatch) {
            log.note(mismatch, first);
        }
    }
    try {
        log.raiseAcrossRanks(core::SoloRanks(), kRows);
    } catch (const core::InputError &error) {
        return error.what();
    }
    return {};
}

} // namespace

void TestMaskMismatchLog::blocksReportTheWholeDifference_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QList<qint64>>("flippedInY");
    QTest::addColumn<QList<qint64>>("flippedInZ");
    // Elements are flat indices of [37, 5]: row 30 is 150..154.
    QTest::newRow("equal masks") << "(x + y) * (x + z)" << QList<qint64>{} << QList<qint64>{};
    QTest::newRow("one late difference") << "x + y" << QList<qint64>{171} << QList<qint64>{};
    QTest::newRow("both sides, several blocks") << "x - y" << QList<qint64>{3, 90, 91, 184} << QList<qint64>{};
    // The second '+' differs in early rows, the first only in late ones: the whole evaluation
    // meets the first '+' first, so its difference is the one reported.
    QTest::newRow("the earlier op in evaluation order") << "(x + z) * (x + y)" << QList<qint64>{0, 1, 7} << QList<qint64>{160};
    QTest::newRow("a later op only") << "(x + y) * (x + z)" << QList<qint64>{} << QList<qint64>{44, 120};
    QTest::newRow("under a reduction") << "sum(y * x, 1)" << QList<qint64>{12, 13, 180} << QList<qint64>{};
    // clamp compares x with y, then with z: y differs in late rows only, z in early ones. The
    // whole evaluation reports x against y; a block of early rows alone fails at x against z.
    QTest::newRow("the earlier pair of one op") << "clamp(x, y, z)" << QList<qint64>{160, 171} << QList<qint64>{3, 4};
}

void TestMaskMismatchLog::blocksReportTheWholeDifference()
{
    QFETCH(QString, source);
    QFETCH(QList<qint64>, flippedInY);
    QFETCH(QList<qint64>, flippedInZ);
    std::mt19937 rng(3);
    std::vector<std::uint8_t> base(static_cast<std::size_t>(kRows * kColumns));
    for (auto &bit : base)
        bit = static_cast<std::uint8_t>(rng() % 3 != 0);
    const std::vector<core::NamedTensor> inputs{{"x", maskedTensor(base, {}, 1), false},
                                                {"y", maskedTensor(base, {flippedInY.begin(), flippedInY.end()}, 2), false},
                                                {"z", maskedTensor(base, {flippedInZ.begin(), flippedInZ.end()}, 3), false}};
    const auto text = source.toStdString();
    const auto expression = core::parseExpression(text);
    const auto whole = wholeError(*expression, text, inputs);
    QCOMPARE(whole.empty(), flippedInY.isEmpty() && flippedInZ.isEmpty());
    for (std::int64_t blockRows = 1; blockRows <= kRows; ++blockRows)
        QCOMPARE(streamedError(*expression, text, inputs, blockRows), whole);
}

void TestMaskMismatchLog::elementwiseBitsDoNotDependOnTheBlock()
{
    // Every length up to two packets' groups, at every offset: the same bits as the whole.
    std::mt19937 rng(5);
    std::normal_distribution<double> value(0.0, 3.0);
    core::DenseTensor<float> data{{1, 67}, {}};
    for (int i = 0; i < 67; ++i)
        data.values.push_back(static_cast<float>(value(rng)));
    const std::string source = "exp(x) - log(abs(x))";
    const auto expression = core::parseExpression(source);
    const auto valuesOf = [&](std::int64_t first, std::int64_t end) {
        core::DenseTensor<float> part{{end - first}, {data.values.begin() + first, data.values.begin() + end}};
        const auto result = core::evaluateExpression(
            *expression, source, core::makeEvalInputs({{"x", core::Tensor(core::Storage{std::move(part)}), false}}));
        return std::get<core::MaskedValue<float>>(result).values;
    };
    const auto whole = valuesOf(0, 67);
    for (std::int64_t first = 0; first < 67; ++first)
        for (std::int64_t end = first + 1; end <= 67; ++end) {
            const auto part = valuesOf(first, end);
            for (std::int64_t i = first; i < end; ++i)
                QCOMPARE(std::bit_cast<std::uint32_t>(part[static_cast<std::size_t>(i - first)]),
                         std::bit_cast<std::uint32_t>(whole[static_cast<std::size_t>(i)]));
        }
}

QTEST_APPLESS_MAIN(TestMaskMismatchLog)
#include "tst_mask_mismatch_log.moc"
