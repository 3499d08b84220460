// Every invariant of every layout, and the shape checks: each message is asserted by a
// substring that quotes the invariant number and the violated condition.
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/coo_tensor.h"
#include "core/tensor/dense_tensor.h"
#include "core/tensor/row_sparse_tensor.h"
#include "core/tensor/shape.h"
#include "core/util/errors.h"

#include <QTest>
#include <functional>

using namespace sparsity::core;

class TestValidation : public QObject {
    Q_OBJECT

private slots:
    void rejects_data();
    void rejects();
    void csrUnsortedIsRepairedWithNotice();
    void cooDetectsCoalesced();
    void validDataPasses();
};

using Check = std::function<void()>;
Q_DECLARE_METATYPE(Check)

namespace {

CompressedTensor<float> csr(Buffer<std::int64_t> indptr, Buffer<std::int64_t> indices, Buffer<float> values, Shape shape = {2, 3})
{
    return {std::move(shape), CompressedAxis::Row, std::move(indptr), std::move(indices), std::move(values)};
}

Check checkCsr(CompressedTensor<float> t)
{
    return [t]() mutable { validateCompressed(t, nullptr, "x"); };
}

Check checkCoo(CooTensor<float> t)
{
    return [t]() mutable { validateCoo(t, false); };
}

Check checkRsp(RowSparseTensor<float> t)
{
    return [t] { validateRowSparse(t); };
}

} // namespace

void TestValidation::rejects_data()
{
    QTest::addColumn<Check>("check");
    QTest::addColumn<QString>("message");
    QTest::newRow("dense D1") << Check([] {
        validateDense(DenseTensor<float>{{2, 2}, {1, 2, 3}});
    }) << "dense D1: values must have numel(shape)=4 entries, but got 3";
    QTest::newRow("shape negative") << Check([] { checkedNumel({3, -1}); }) << "must have non-negative extents";
    QTest::newRow("shape overflow") << Check([] {
        checkedNumel({std::int64_t{1} << 40, std::int64_t{1} << 40});
    }) << "must have at most 2^63-1 elements";
    QTest::newRow("CSR I1") << checkCsr(csr({0, 0}, {}, {}, {3})) << "CSR I1: shape must be 2-d";
    QTest::newRow("CSR I2") << checkCsr(csr({0, 1}, {0}, {1})) << "CSR I2: indptr must have 3 entries, but got 2";
    QTest::newRow("CSR I3") << checkCsr(csr({1, 1, 1}, {0}, {1})) << "CSR I3: indptr[0] must be 0";
    QTest::newRow("CSR I4") << checkCsr(csr({0, 1, 2}, {0, 1}, {1}))
                            << "CSR I4: indptr[2], len(indices) and len(data) must agree";
    QTest::newRow("CSR I5 decreasing") << checkCsr(csr({0, 2, 1, 2}, {0, 1}, {1, 2}, {3, 3}))
                                       << "CSR I5: indptr must be non-decreasing, but indptr[1]=2 > indptr[2]=1";
    QTest::newRow("CSR I6") << checkCsr(csr({0, 1, 1}, {3}, {1})) << "CSR I6: indices must be in [0, 3), but indices[0]=3";
    QTest::newRow("COO C1") << checkCoo({{2, 2}, 3, 0, {}, {}, false}) << "COO C1: sparse dims must be in [0, rank=2]";
    QTest::newRow("COO C2") << checkCoo({{2, 2}, 2, 2, {0, 1, 1}, {1, 2}, false}) << "COO C2: indices must have shape [2, nnz=2]";
    QTest::newRow("COO C3") << checkCoo({{2, 2}, 2, 1, {0, 1}, {1, 2}, false}) << "COO C3: values must have nnz*1=1 entries";
    QTest::newRow("COO C4") << checkCoo({{2, 2}, 2, 1, {0, 2}, {1}, false})
                            << "COO C4: indices[1, k] must be in [0, 2), but indices[1, 0]=2";
    QTest::newRow("COO C4 negative") << checkCoo({{2, 2}, 2, 1, {-1, 0}, {1}, false}) << "indices[0, 0]=-1";
    QTest::newRow("COO C5") << checkCoo({{4}, 1, 2, {2, 1}, {1, 2}, true})
                            << "COO C5: a coalesced tensor must have sorted unique indices";
    QTest::newRow("RSP R1") << checkRsp({{}, {}, {}}) << "row_sparse R1: rank must be >= 1";
    QTest::newRow("RSP R2") << checkRsp({{4, 2}, {1}, {1, 2, 3}}) << "row_sparse R2: data must have shape [1, ...]";
    QTest::newRow("RSP R3") << checkRsp({{4, 1}, {4}, {1}}) << "row_sparse R3: indices must be in [0, 4), but indices[0]=4";
    QTest::newRow("RSP R4 unsorted")
        << checkRsp({{4, 1}, {2, 1}, {1, 2}})
        << "row_sparse R4: indices must be strictly increasing (sorted, unique), but indices[0]=2 >= indices[1]=1";
    QTest::newRow("RSP R4 duplicate") << checkRsp({{4, 1}, {1, 1}, {1, 2}}) << "indices[0]=1 >= indices[1]=1";
}

void TestValidation::rejects()
{
    QFETCH(Check, check);
    QFETCH(QString, message);
    try {
        check();
        QFAIL("expected an InputError");
    } catch (const InputError &error) {
        if (!QString(error.what()).contains(message))
            QFAIL(qPrintable(QStringLiteral("message \"%1\" lacks \"%2\"").arg(error.what(), message)));
    }
}

void TestValidation::csrUnsortedIsRepairedWithNotice()
{
    auto t = csr({0, 3, 4}, {2, 0, 2, 1}, {1, 2, 3, 4});
    ValidationReport report;
    validateCompressed(t, &report, "f.h5:/x");
    QCOMPARE(report.findings().size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(report.findings()[0].invariant), QString("CSR I7"));
    QVERIFY(QString::fromStdString(report.findings()[0].detail).contains("1 duplicates summed"));
    QCOMPARE((std::vector<std::int64_t>(t.indptr.begin(), t.indptr.end())), (std::vector<std::int64_t>{0, 2, 3}));
    QCOMPARE((std::vector<std::int64_t>(t.indices.begin(), t.indices.end())), (std::vector<std::int64_t>{0, 2, 1}));
    QCOMPARE((std::vector<float>(t.values.begin(), t.values.end())), (std::vector<float>{2, 4, 4}));
}

void TestValidation::cooDetectsCoalesced()
{
    CooTensor<float> sorted{{3, 3}, 2, 2, {0, 1, 2, 0}, {1, 2}, false};
    validateCoo(sorted, true);
    QVERIFY(sorted.coalesced);
    CooTensor<float> duplicate{{3}, 1, 2, {1, 1}, {1, 2}, false};
    validateCoo(duplicate, true);
    QVERIFY(!duplicate.coalesced);
}

void TestValidation::validDataPasses()
{
    validateDense(DenseTensor<double>{{}, {1.0}});
    validateDense(DenseTensor<double>{{0, 5}, {}});
    auto ok = csr({0, 1, 1}, {2}, {1});
    validateCompressed(ok, nullptr, "x");
    CooTensor<double> scalar{{}, 0, 1, {}, {3.0}, false};
    validateCoo(scalar, true);
    validateRowSparse(RowSparseTensor<float>{{5}, {0, 4}, {1, 2}});
}

QTEST_GUILESS_MAIN(TestValidation)
#include "tst_validation.moc"
