// Every layout to every layout, float32 and float64, against the dense oracle; masks carried
// through; the cast_storage pattern rules; coalesce, sparse_mask and retain.
#include "core/tensor/conversions.h"
#include "core/tensor/slice_rows.h"
#include "core/tensor/sorting.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"
#include "test_tensors.h"

#include <QTest>
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

using namespace sparsity;
using core::DType;
using core::Layout;
using core::Shape;

Q_DECLARE_METATYPE(core::Layout)
Q_DECLARE_METATYPE(core::DType)
Q_DECLARE_METATYPE(core::Shape)

class TestConversions : public QObject {
    Q_OBJECT

private slots:
    void everyPair_data();
    void everyPair();
    void maskedEveryPair_data();
    void maskedEveryPair();
    void maskedDenseCompressesAsItsCoo();
    void denseToSparseDropsZeros();
    void sparseToSparseKeepsExplicitZeros();
    void hybridCooToCsrExpandsDenseDims();
    void coalesceSumsDuplicates();
    void stableOrderByKeyIsAStableSort_data();
    void stableOrderByKeyIsAStableSort();
    void uncoalescedCooConvertsWithSums();
    void castStorageFollowsMxnet();
    void sparseMaskGathersAtPattern();
    void retainKeepsListedRows();
    void rankErrorsNameTheLayout();
    void sliceRowsKeepsLayoutAndRows();
    void sliceRowsOfUncoalescedCooKeepsDuplicates();
    void sliceRowsOfHybridCoo();
    void denseWithSpecifiedIsBothConversions();
};

namespace {

struct Case {
    const char *name;
    Shape shape;
    double density;
};

const Case kShapes[] = {
    {"2d", {7, 9}, 0.3}, {"2d-dense", {4, 5}, 1.0}, {"2d-zero", {3, 3}, 0.0}, {"empty", {0, 4}, 0.5},
    {"1d", {11}, 0.4},   {"3d", {3, 4, 5}, 0.25},   {"0d", {}, 1.0},          {"column", {6, 1}, 0.5},
};

void addPairs(bool skipZeroD)
{
    QTest::addColumn<Layout>("source");
    QTest::addColumn<Layout>("target");
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<Shape>("shape");
    QTest::addColumn<double>("density");
    for (const auto &source : core::allLayouts())
        for (const auto &target : core::allLayouts())
            for (DType dtype : {DType::Float32, DType::Float64})
                for (const auto &c : kShapes) {
                    const int rank = static_cast<int>(c.shape.size());
                    if (!core::layoutAcceptsRank(source.layout, rank) || !core::layoutAcceptsRank(target.layout, rank))
                        continue;
                    if (skipZeroD && rank == 0)
                        continue;
                    QTest::addRow("%s/%s/%s/%s", source.name.data(), target.name.data(), core::dtypeName(dtype).data(), c.name)
                        << source.layout << target.layout << dtype << c.shape << c.density;
                }
}

} // namespace

void TestConversions::everyPair_data() { addPairs(false); }

void TestConversions::everyPair()
{
    QFETCH(Layout, source);
    QFETCH(Layout, target);
    QFETCH(DType, dtype);
    QFETCH(Shape, shape);
    QFETCH(double, density);
    const auto oracle = test::randomTensor(dtype, shape, density, 17);
    const auto from = core::toLayout(oracle, source);
    QCOMPARE(from.layout(), source);
    const auto to = core::toLayout(from, target);
    QCOMPARE(to.layout(), target);
    QCOMPARE(to.dtype(), dtype);
    test::compareDense(to, oracle);
    // And back: every round trip is lossless.
    test::compareDense(core::toLayout(to, source), oracle);
}

void TestConversions::maskedEveryPair_data() { addPairs(true); }

void TestConversions::maskedEveryPair()
{
    QFETCH(Layout, source);
    QFETCH(Layout, target);
    QFETCH(DType, dtype);
    QFETCH(Shape, shape);
    QFETCH(double, density);
    // Specified zeros matter: mask and values are independent.
    auto dense = test::randomTensor(dtype, shape, density, 5);
    dense.setMask(test::randomMask(static_cast<std::size_t>(core::numel(shape)), 0.6, 9));
    const auto from = core::toLayout(dense, source);
    QVERIFY(from.isMasked());
    QCOMPARE(from.specifiedCount(), dense.specifiedCount());
    const auto to = core::toLayout(from, target);
    QVERIFY(to.isMasked());
    QCOMPARE(to.specifiedCount(), dense.specifiedCount());
    // The oracle: values zeroed where unspecified, same mask.
    const auto expectedValues = core::toDenseDouble(dense);
    const auto actualValues = core::toDenseDouble(to);
    QCOMPARE(core::specifiedMaskDense(to) == core::specifiedMaskDense(dense), true);
    const auto mask = core::specifiedMaskDense(dense);
    for (std::size_t k = 0; k < mask.size(); ++k)
        QCOMPARE(actualValues.values[k], mask[k] ? expectedValues.values[k] : 0.0);
}

// A masked dense tensor into csr or csc is compressed straight from its mask: entry for entry
// (order, bits, -0 and specified zeros) what its coalesced coo converts to.
void TestConversions::maskedDenseCompressesAsItsCoo()
{
    auto dense = test::randomTensor(DType::Float32, {37, 23}, 0.5, 3);
    dense.setMask(test::randomMask(37 * 23, 0.6, 4));
    auto &values = std::get<core::DenseTensor<float>>(dense.storage()).values;
    values[0] = -0.0f; // specified or not, its bits are kept where specified
    values[1] = 0.0f;
    for (const auto target : {Layout::Csr, Layout::Csc}) {
        const auto straight = core::toLayout(dense, target);
        const auto throughCoo = core::toLayout(core::toLayout(dense, Layout::Coo), target);
        const auto &a = std::get<core::CompressedTensor<float>>(straight.storage());
        const auto &b = std::get<core::CompressedTensor<float>>(throughCoo.storage());
        QCOMPARE(a.axis, b.axis);
        QVERIFY(a.indptr == b.indptr);
        QVERIFY(a.indices == b.indices);
        QCOMPARE(a.values.size(), b.values.size());
        QCOMPARE(std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(float)), 0);
        QVERIFY(*straight.mask() == *throughCoo.mask());
    }
}

void TestConversions::denseToSparseDropsZeros()
{
    const auto dense = test::randomTensor(DType::Float32, {20, 30}, 0.2, 3);
    const auto values = core::toDenseDouble(dense).values;
    const auto nonzeros = static_cast<std::int64_t>(std::count_if(values.begin(), values.end(), [](double v) { return v != 0; }));
    QCOMPARE(core::toLayout(dense, Layout::Csr).storedCount(), nonzeros);
    QCOMPARE(core::toLayout(dense, Layout::Csc).storedCount(), nonzeros);
    QCOMPARE(core::toLayout(dense, Layout::Coo).storedCount(), nonzeros);
    // row_sparse keeps whole rows that have any nonzero.
    const auto rsp = std::get<core::RowSparseTensor<float>>(core::toLayout(dense, Layout::RowSparse).storage());
    QCOMPARE(rsp.values.size(), rsp.rows.size() * 30);
}

void TestConversions::sparseToSparseKeepsExplicitZeros()
{
    core::CooTensor<double> coo{{3, 4}, 2, 3, {0, 1, 2, 1, 3, 0}, {0.0, 5.0, 0.0}, true};
    const core::Tensor t(core::Storage{coo});
    QCOMPARE(core::toLayout(t, Layout::Csr).storedCount(), 3);
    QCOMPARE(core::toLayout(t, Layout::Csc).storedCount(), 3);
    // Rows 0, 1, 2 each hold an entry, so row_sparse stores all three rows.
    QCOMPARE(core::toLayout(t, Layout::RowSparse).storedCount(), 12);
    // Through dense the explicit zeros are gone.
    QCOMPARE(core::toLayout(core::toLayout(t, Layout::Dense), Layout::Csr).storedCount(), 1);
}

void TestConversions::hybridCooToCsrExpandsDenseDims()
{
    // Two rows of a [4, 3] tensor as a hybrid COO (sparse rows, dense columns).
    core::CooTensor<float> coo{{4, 3}, 1, 2, {3, 1}, {1, 0, 2, 4, 5, 0}, false};
    const auto csr =
        std::get<core::CompressedTensor<float>>(core::toLayout(core::Tensor(core::Storage{coo}), Layout::Csr).storage());
    QCOMPARE(csr.nnz(), 6); // every dense slot is stored, zeros included
    QCOMPARE((std::vector<std::int64_t>(csr.indptr.begin(), csr.indptr.end())), (std::vector<std::int64_t>{0, 0, 3, 3, 6}));
    QCOMPARE((std::vector<float>(csr.values.begin(), csr.values.end())), (std::vector<float>{4, 5, 0, 1, 0, 2}));
}

void TestConversions::stableOrderByKeyIsAStableSort_data()
{
    QTest::addColumn<QString>("keys");
    for (const char *keys : {"shuffled with duplicates", "a few values", "sorted", "descending", "one key", "the int64 extremes",
                             "empty", "clustered"})
        QTest::newRow(keys) << QString(keys);
}

// stableOrderByKey (which coalescing sums duplicates in the order of) is the order a stable
// sort of the positions by key gives, whatever the keys: equal keys by position, keys spread
// over the whole int64 range or bunched in one of its buckets.
void TestConversions::stableOrderByKeyIsAStableSort()
{
    QFETCH(QString, keys);
    std::mt19937_64 rng(7);
    std::vector<std::int64_t> k(5000);
    const auto name = keys.toStdString();
    for (std::size_t i = 0; i < k.size(); ++i) {
        if (name == "shuffled with duplicates")
            k[i] = static_cast<std::int64_t>(rng() % 3000);
        else if (name == "a few values")
            k[i] = static_cast<std::int64_t>(rng() % 3) - 1;
        else if (name == "sorted")
            k[i] = static_cast<std::int64_t>(i / 3);
        else if (name == "descending")
            k[i] = 10'000 - static_cast<std::int64_t>(i);
        else if (name == "one key")
            k[i] = 42;
        else if (name == "the int64 extremes")
            k[i] = i % 3 == 0   ? std::numeric_limits<std::int64_t>::min()
                   : i % 3 == 1 ? std::numeric_limits<std::int64_t>::max()
                                : static_cast<std::int64_t>(rng());
        else if (name == "clustered") // most in a narrow run, a few far out
            k[i] = i % 100 == 0 ? static_cast<std::int64_t>(rng() >> 1) : static_cast<std::int64_t>(rng() % 50);
    }
    if (name == "empty")
        k.clear();
    if (name == "the int64 extremes") // fewer keys than a bucket: the widest shift
        k.resize(20);
    std::vector<std::int64_t> expected(k.size());
    std::iota(expected.begin(), expected.end(), std::int64_t{0});
    std::stable_sort(expected.begin(), expected.end(), [&](std::int64_t a, std::int64_t b) {
        return k[static_cast<std::size_t>(a)] < k[static_cast<std::size_t>(b)];
    });
    QCOMPARE(core::stableOrderByKey(k), expected);
}

void TestConversions::coalesceSumsDuplicates()
{
    core::CooTensor<double> coo{{3, 3}, 2, 4, {2, 0, 2, 0, 1, 1, 1, 1}, {1.0, 2.0, 3.0, 4.0}, false};
    const auto c = core::coalesce(coo);
    QVERIFY(c.coalesced);
    QCOMPARE(c.nnz, 2);
    QCOMPARE((std::vector<std::int64_t>(c.indices.begin(), c.indices.end())), (std::vector<std::int64_t>{0, 2, 1, 1}));
    QCOMPARE((std::vector<double>(c.values.begin(), c.values.end())), (std::vector<double>{6.0, 4.0}));
}

void TestConversions::uncoalescedCooConvertsWithSums()
{
    core::CooTensor<float> coo{{2, 2}, 2, 3, {1, 1, 0, 0, 0, 1}, {1.5f, 2.5f, 3.0f}, false};
    const core::Tensor t(core::Storage{coo});
    for (auto layout : {Layout::Dense, Layout::Csr, Layout::Csc, Layout::RowSparse}) {
        const auto dense = core::toDenseDouble(core::toLayout(t, layout));
        QCOMPARE((std::vector<double>(dense.values.begin(), dense.values.end())), (std::vector<double>{0, 3, 4, 0}));
    }
}

void TestConversions::castStorageFollowsMxnet()
{
    const auto dense = test::randomTensor(DType::Float32, {5, 6}, 0.3, 1);
    QCOMPARE(core::castStorage(dense, Layout::Csr).layout(), Layout::Csr);
    QCOMPARE(core::castStorage(core::castStorage(dense, Layout::RowSparse), Layout::Dense).layout(), Layout::Dense);
    QCOMPARE(core::castStorage(dense, Layout::Dense).layout(), Layout::Dense);
    try {
        core::castStorage(core::toLayout(dense, Layout::Coo), Layout::Csr);
        QFAIL("coo -> csr is not an MXNet storage cast");
    } catch (const core::InputError &error) {
        QVERIFY(QString(error.what()).contains("coo -> csr"));
    }
}

void TestConversions::sparseMaskGathersAtPattern()
{
    const auto dense = test::randomTensor(DType::Float64, {4, 5}, 1.0, 11);
    core::CooTensor<float> pattern{{4, 5}, 2, 2, {0, 3, 4, 1}, {9.0f, 9.0f}, true};
    const auto masked = core::sparseMask(dense, core::Tensor(core::Storage{pattern}));
    QCOMPARE(masked.layout(), Layout::Coo);
    QCOMPARE(masked.dtype(), DType::Float64);
    const auto &coo = std::get<core::CooTensor<double>>(masked.storage());
    const auto &values = std::get<core::DenseTensor<double>>(dense.storage()).values;
    QCOMPARE(coo.values[0], values[4]);
    QCOMPARE(coo.values[1], values[16]);
}

void TestConversions::retainKeepsListedRows()
{
    core::RowSparseTensor<float> rsp{{6, 2}, {1, 3, 4}, {1, 1, 3, 3, 4, 4}};
    const std::int64_t keep[] = {4, 0, 1};
    const auto kept = core::retainRows(rsp, keep);
    QCOMPARE((std::vector<std::int64_t>(kept.rows.begin(), kept.rows.end())), (std::vector<std::int64_t>{1, 4}));
    QCOMPARE((std::vector<float>(kept.values.begin(), kept.values.end())), (std::vector<float>{1, 1, 4, 4}));
    const std::int64_t bad[] = {6};
    QVERIFY_THROWS_EXCEPTION(core::InputError, core::retainRows(rsp, bad));
}

void TestConversions::rankErrorsNameTheLayout()
{
    const auto t = test::randomTensor(DType::Float32, {2, 3, 4}, 0.5, 2);
    try {
        core::toLayout(t, Layout::Csr);
        QFAIL("expected an InputError");
    } catch (const core::InputError &error) {
        QCOMPARE(QString(error.what()), QString("layout csr needs a 2-d tensor, but got shape [2, 3, 4]"));
    }
    const auto scalar = test::randomTensor(DType::Float32, {}, 1.0, 2);
    QVERIFY_THROWS_EXCEPTION(core::InputError, core::toLayout(scalar, Layout::RowSparse));
}

QTEST_GUILESS_MAIN(TestConversions)
// Rows of every layout, masked or not, stay in their layout, and densified they are the
// whole tensor's densified rows with its specified elements; empty and whole ranges included.
void TestConversions::sliceRowsKeepsLayoutAndRows()
{
    for (const auto &shape : {Shape{9, 7}, Shape{6, 3, 2}, Shape{5}})
        for (const bool masked : {false, true})
            for (const auto &info : core::allLayouts()) {
                const auto layout = info.layout;
                if (!core::layoutAcceptsRank(layout, static_cast<int>(shape.size())))
                    continue;
                auto dense = test::randomTensor(DType::Float32, shape, 0.4, 17);
                if (masked)
                    dense.setMask(test::randomMask(static_cast<std::size_t>(core::numel(shape)), 0.6, 3));
                const auto whole = core::toLayout(dense, layout);
                const auto width = core::numel(shape, 1, shape.size());
                const auto denseWhole = core::toDenseDouble(whole);
                const auto specifiedWhole = core::specifiedMaskDense(whole);
                for (const core::RowRange rows : {core::RowRange{0, 0}, core::RowRange{2, 4}, core::RowRange{0, shape[0]},
                                                  core::RowRange{shape[0] - 1, shape[0]}}) {
                    const auto label = QStringLiteral("%1 %2 rows [%3, %4)")
                                           .arg(QString::fromUtf8(core::layoutName(layout).data()),
                                                masked ? QStringLiteral("masked") : QStringLiteral("plain"))
                                           .arg(rows.begin)
                                           .arg(rows.end);
                    const auto slice = core::sliceRows(whole, rows);
                    QVERIFY2(slice.layout() == layout && slice.isMasked() == masked, qPrintable(label));
                    auto expectedShape = shape;
                    expectedShape[0] = rows.count();
                    QVERIFY2(slice.shape() == expectedShape, qPrintable(label));
                    const auto values = core::toDenseDouble(slice);
                    const auto specified = core::specifiedMaskDense(slice);
                    for (std::int64_t k = 0; k < rows.count() * width; ++k) {
                        const auto w = static_cast<std::size_t>(rows.begin * width + k);
                        QVERIFY2(values.values[static_cast<std::size_t>(k)] == denseWhole.values[w], qPrintable(label));
                        QVERIFY2(specified[static_cast<std::size_t>(k)] == specifiedWhole[w], qPrintable(label));
                    }
                }
            }
    QVERIFY_THROWS_EXCEPTION(core::InputError, core::sliceRows(test::randomTensor(DType::Float32, {4, 2}, 1.0, 1), {3, 5}));
    QVERIFY_THROWS_EXCEPTION(core::InputError, core::sliceRows(test::randomTensor(DType::Float32, {}, 1.0, 1), {0, 0}));
}

// An uncoalesced COO tensor's rows keep their entries' order and duplicates: coalescing the
// rows sums them as coalescing the whole does.
void TestConversions::sliceRowsOfUncoalescedCooKeepsDuplicates()
{
    // Entries (row, col): (3,1) (0,0) (3,1) (1,2) (2,0) (3,0), values 1..6.
    core::CooTensor<float> coo{{4, 3}, 2, 6, {3, 0, 3, 1, 2, 3, 1, 0, 1, 2, 0, 0}, {1, 2, 3, 4, 5, 6}, false};
    const auto slice = core::sliceRows(core::Tensor(core::Storage{coo}), {1, 4});
    const auto &rows = std::get<core::CooTensor<float>>(slice.storage());
    QCOMPARE(rows.nnz, std::int64_t{5});
    QVERIFY(!rows.coalesced);
    QCOMPARE((std::vector<std::int64_t>(rows.indices.begin(), rows.indices.end())),
             (std::vector<std::int64_t>{2, 2, 0, 1, 2, 1, 1, 2, 0, 0}));
    QCOMPARE((std::vector<float>(rows.values.begin(), rows.values.end())), (std::vector<float>{1, 3, 4, 5, 6}));
    const auto summed = core::toDenseDouble(slice);
    QCOMPARE((std::vector<double>(summed.values.begin(), summed.values.end())), (std::vector<double>{0, 0, 4, 5, 0, 0, 6, 4, 0}));
}

// A hybrid COO (sparse rows, dense columns: each entry a row) and one with no sparse dims (one
// entry holding the whole tensor), masked: their rows, densified, are the whole's rows.
void TestConversions::sliceRowsOfHybridCoo()
{
    core::CooTensor<float> rowsOfCols{{4, 3}, 1, 2, {3, 1}, {1, 0, 2, 4, 5, 0}, false};
    core::CooTensor<float> whole{{4, 3}, 0, 1, {}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, false};
    for (auto coo : {rowsOfCols, whole}) {
        core::Tensor tensor(core::Storage{coo}, test::randomMask(coo.values.size(), 0.5, 8));
        const auto label = QStringLiteral("%1 sparse dims").arg(coo.sparseDims);
        const auto dense = core::toDenseDouble(tensor);
        const auto specified = core::specifiedMaskDense(tensor);
        for (const core::RowRange rows : {core::RowRange{1, 3}, core::RowRange{0, 4}, core::RowRange{2, 2}}) {
            const auto slice = core::sliceRows(tensor, rows);
            QVERIFY2(slice.layout() == Layout::Coo && slice.shape() == (Shape{rows.count(), 3}), qPrintable(label));
            const auto values = core::toDenseDouble(slice);
            const auto mask = core::specifiedMaskDense(slice);
            for (std::int64_t k = 0; k < rows.count() * 3; ++k) {
                QVERIFY2(values.values[static_cast<std::size_t>(k)] == dense.values[static_cast<std::size_t>(rows.begin * 3 + k)],
                         qPrintable(label));
                QVERIFY2(mask[static_cast<std::size_t>(k)] == specified[static_cast<std::size_t>(rows.begin * 3 + k)],
                         qPrintable(label));
            }
        }
    }
}

// toDenseWithSpecifiedInto (a masked coo densified in one pass, without the sort) writes the
// bits of toDenseInto and specifiedMaskInto: random masked coo tensors of 2, 1 (hybrid) and 0
// sparse dims, their entries shuffled with many duplicates (some specified, some not), of
// values whose sums test the order of additions: -0 and +0, NaNs of two payloads, infinities,
// overflow; and masked csr and dense ones, which convert once for both.
void TestConversions::denseWithSpecifiedIsBothConversions()
{
    const auto check = [](const core::Tensor &tensor, const QString &label) {
        const auto n = static_cast<std::size_t>(core::numel(tensor.shape()));
        std::vector<float> values(n, 7.0f), expected(n);
        core::Mask specified(n, 7), expectedSpecified(n);
        core::toDenseWithSpecifiedInto(tensor, values.data(), specified.data());
        core::toDenseInto(tensor, expected.data());
        core::specifiedMaskInto(tensor, expectedSpecified.data());
        QVERIFY2(std::memcmp(values.data(), expected.data(), n * sizeof(float)) == 0, qPrintable(label));
        QVERIFY2(specified == expectedSpecified, qPrintable(label));
    };
    const float nanA = std::bit_cast<float>(0x7fc00001u), nanB = std::bit_cast<float>(0xffc00002u);
    const std::vector<float> pool{-0.0f,
                                  0.0f,
                                  1.5f,
                                  -1.5f,
                                  3e38f,
                                  -3e38f,
                                  nanA,
                                  nanB,
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity()};
    std::mt19937 random(5);
    for (int trial = 0; trial < 200; ++trial) {
        const int sparseDims = trial % 3 == 2 ? 0 : 2 - trial % 3; // 2, 1 (hybrid), 0
        const Shape shape{3, 4};
        const std::int64_t entries = sparseDims == 0 ? 1 : 1 + static_cast<std::int64_t>(random() % 24);
        const auto slot = sparseDims == 2 ? 1 : sparseDims == 1 ? 4 : 12;
        core::CooTensor<float> coo;
        coo.shape = shape;
        coo.sparseDims = sparseDims;
        coo.nnz = entries;
        coo.coalesced = false;
        for (int d = 0; d < sparseDims; ++d)
            for (std::int64_t k = 0; k < entries; ++k)
                coo.indices.push_back(
                    static_cast<std::int64_t>(random() % static_cast<unsigned>(shape[static_cast<std::size_t>(d)])));
        for (std::int64_t k = 0; k < entries * slot; ++k)
            coo.values.push_back(pool[random() % pool.size()]);
        core::Mask mask(coo.values.size());
        for (auto &bit : mask)
            bit = static_cast<std::uint8_t>(random() % 3 == 0 ? 0 : 1 + random() % 2); // 0, 1 or 2
        const core::Tensor tensor(core::Storage{coo}, mask);
        check(tensor, QStringLiteral("coo, %1 sparse dims, trial %2").arg(sparseDims).arg(trial));
        if (sparseDims == 2) {
            check(core::toLayout(tensor, Layout::Csr), QStringLiteral("csr, trial %1").arg(trial));
            check(core::toLayout(tensor, Layout::Dense), QStringLiteral("dense, trial %1").arg(trial));
        }
    }
}

#include "tst_conversions.moc"
