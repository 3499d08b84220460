// The desktop preview's mask of a window of rows under a recipe that ranks the whole tensor
// (core/pipeline/whole_tensor_choice.h) against computeMask on the whole element: the same
// bytes, for data-norm (whole and partial blocks, L1 and L2, bands that straddle the window's
// edges and element rows, a one-row view of a 1-d table) and row-norm, float32 and float64,
// dense and csr, with NaN; read in many small pieces; levels changed without reading again.
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/pipeline/whole_tensor_choice.h"
#include "core/sparsify/data_sparsifier.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"
#include "test_tensors.h"

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <limits>

using namespace sparsity;
using core::DType;
using core::Layout;
using core::Shape;
using core::SparsifierConfig;
using core::SparsifierMethod;

Q_DECLARE_METATYPE(core::Layout)
Q_DECLARE_METATYPE(core::DType)
Q_DECLARE_METATYPE(core::Shape)
Q_DECLARE_METATYPE(core::SparsifierConfig)

class TestWholeTensorChoice : public QObject {
    Q_OBJECT

private slots:
    void windowsMaskAsTheWholeDoes_data();
    void windowsMaskAsTheWholeDoes();
    void servesOtherLevelsNotOtherBlocks();
    void refusesWhatTheWholeRefuses();
};

namespace {

SparsifierConfig dataNorm(std::int64_t blockRows, std::int64_t blockCols, std::optional<std::int64_t> zeros, core::BlockNorm norm)
{
    SparsifierConfig config;
    config.method = SparsifierMethod::DataNorm;
    config.blockRows = blockRows;
    config.blockCols = blockCols;
    config.zerosPerBlock = zeros;
    config.norm = norm;
    return config;
}

// Random values with two NaN, whose scores and norms rank last.
template <class T>
core::Tensor withNaN(const Shape &shape)
{
    auto values = test::randomDense<T>(shape, 0.8, 11);
    if (values.values.size() > 7) {
        values.values[7] = std::numeric_limits<T>::quiet_NaN();
        values.values[values.values.size() / 2] = values.values[7];
    }
    return core::Tensor(core::Storage{std::move(values)});
}

// A 40 x 8 float32 table as /t of a file in `dir`, opened for reading.
core::H5File smallTable(const QTemporaryDir &dir)
{
    const auto path = dir.filePath(QStringLiteral("small.h5")).toStdString();
    {
        auto file = core::H5File::create(path);
        core::writeTensor(file, "/t", test::randomTensor(DType::Float32, {40, 8}, 1.0, 2));
        file.close();
    }
    return core::H5File::openRead(path);
}

SparsifierConfig rowNorm()
{
    SparsifierConfig config;
    config.method = SparsifierMethod::RowNorm;
    return config;
}

} // namespace

void TestWholeTensorChoice::windowsMaskAsTheWholeDoes_data()
{
    QTest::addColumn<Shape>("shape");
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<Layout>("layout");
    QTest::addColumn<SparsifierConfig>("config");
    const auto l1 = core::BlockNorm::L1, l2 = core::BlockNorm::L2;
    QTest::newRow("data-norm 3x4 partial L2") << Shape{997, 10} << DType::Float32 << Layout::Dense << dataNorm(3, 4, 5, l2);
    QTest::newRow("data-norm 1x4 whole L1") << Shape{997, 10} << DType::Float32 << Layout::Dense << dataNorm(1, 4, {}, l1);
    QTest::newRow("data-norm 5x3 partial, 2 view rows a row")
        << Shape{601, 2, 7} << DType::Float32 << Layout::Dense << dataNorm(5, 3, 4, l1);
    QTest::newRow("data-norm 4x4 float64 csr") << Shape{803, 9} << DType::Float64 << Layout::Csr << dataNorm(4, 4, 3, l2);
    QTest::newRow("data-norm 2x3, 3 view rows a row")
        << Shape{401, 3, 5} << DType::Float32 << Layout::Dense << dataNorm(2, 3, 2, l1);
    QTest::newRow("data-norm 6x2, 3 view rows a row (gcd 3)")
        << Shape{401, 3, 4} << DType::Float64 << Layout::Dense << dataNorm(6, 2, 5, l2);
    QTest::newRow("data-norm, a squeezed middle dim")
        << Shape{501, 1, 9} << DType::Float32 << Layout::Dense << dataNorm(4, 4, 3, l1);
    QTest::newRow("data-norm, rows of no values")
        << Shape{501, 0, 3} << DType::Float32 << Layout::Dense << dataNorm(2, 2, {}, l1);
    QTest::newRow("row-norm, rows of no values") << Shape{501, 0, 3} << DType::Float32 << Layout::Dense << rowNorm();
    QTest::newRow("data-norm 1-d") << Shape{4099} << DType::Float32 << Layout::Dense << dataNorm(1, 6, 2, l1);
    QTest::newRow("data-norm column") << Shape{4099, 1} << DType::Float64 << Layout::Dense << dataNorm(1, 7, {}, l2);
    QTest::newRow("row-norm") << Shape{997, 10} << DType::Float32 << Layout::Dense << rowNorm();
    QTest::newRow("row-norm 3-d float64") << Shape{601, 2, 7} << DType::Float64 << Layout::Dense << rowNorm();
}

void TestWholeTensorChoice::windowsMaskAsTheWholeDoes()
{
    QFETCH(Shape, shape);
    QFETCH(DType, dtype);
    QFETCH(Layout, layout);
    QFETCH(SparsifierConfig, config);
    QTemporaryDir dir;
    const auto path = dir.filePath(QStringLiteral("t.h5")).toStdString();
    {
        const auto values = dtype == DType::Float32 ? withNaN<float>(shape) : withNaN<double>(shape);
        auto file = core::H5File::create(path);
        core::writeTensor(file, "/t", core::toLayout(values, layout));
        file.close();
    }
    const auto file = core::H5File::openRead(path);
    const auto whole = core::readTensor(file, "/t");
    const auto rowWidth = core::numel(shape, 1, shape.size());
    // Reads of about 3 rows' bytes: the scores and norms come from many pieces.
    const core::WholeTensorChoice choice(file, "/t", config, {}, 3 * rowWidth * 8);
    const auto rows = shape[0];
    for (const double level : {0.0, 0.3, 0.5, 1.0}) {
        auto at = config;
        at.sparsityLevel = level;
        at.keep = level;
        QVERIFY(choice.serves(at));
        const auto expected = core::computeMask(whole, at);
        for (const core::RowRange window : {core::RowRange{0, rows}, core::RowRange{0, 1}, core::RowRange{1, 101},
                                            core::RowRange{rows / 3, rows / 3 + rows / 2}, core::RowRange{rows - 7, rows},
                                            core::RowRange{rows - 1, rows}, core::RowRange{5, 5}}) {
            const auto mask = choice.maskOfRows(file, window, at);
            QCOMPARE(static_cast<std::int64_t>(mask.size()), window.count() * rowWidth);
            const auto begin = expected.begin() + window.begin * rowWidth;
            QVERIFY2(std::equal(mask.begin(), mask.end(), begin),
                     qPrintable(QStringLiteral("level %1, rows [%2, %3)").arg(level).arg(window.begin).arg(window.end)));
        }
    }
}

void TestWholeTensorChoice::servesOtherLevelsNotOtherBlocks()
{
    QTemporaryDir dir;
    const auto file = smallTable(dir);
    const auto config = dataNorm(2, 4, {}, core::BlockNorm::L1);
    const core::WholeTensorChoice choice(file, "/t", config);
    auto other = config;
    other.sparsityLevel = 0.9;
    other.zerosPerBlock = 3;
    QVERIFY(choice.serves(other));
    other.blockCols = 2;
    QVERIFY(!choice.serves(other));
    other = config;
    other.norm = core::BlockNorm::L2;
    QVERIFY(!choice.serves(other));
    QVERIFY(!choice.serves(rowNorm()));
}

// What computeMask refuses of the whole, a choice refuses too, with its error.
void TestWholeTensorChoice::refusesWhatTheWholeRefuses()
{
    QTemporaryDir dir;
    const auto file = smallTable(dir);
    auto bad = dataNorm(2, 4, 9, core::BlockNorm::L1); // more zeros than a block holds
    QString expected;
    try {
        core::computeMask(core::readTensor(file, "/t"), bad);
    } catch (const core::InputError &error) {
        expected = QString::fromStdString(error.what());
    }
    QVERIFY(!expected.isEmpty());
    try {
        core::WholeTensorChoice(file, "/t", bad);
        QFAIL("refused by computeMask, accepted here");
    } catch (const core::InputError &error) {
        QCOMPARE(QString::fromStdString(error.what()), expected);
    }
}

QTEST_APPLESS_MAIN(TestWholeTensorChoice)
#include "tst_whole_tensor_choice.moc"
