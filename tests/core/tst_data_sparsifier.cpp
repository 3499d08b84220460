// The data sparsifier API (PyTorch's BaseDataSparsifier semantics), the state dict through
// HDF5, tie and NaN rules of the methods, every config refusal, and the schedulers.
#include "core/io/h5_attributes.h"
#include "core/io/h5_handle.h"
#include "core/io/sparsifier_state_io.h"
#include "core/sparsify/data_sparsifier.h"
#include "core/sparsify/mask_kernels.h"
#include "core/sparsify/scheduler.h"
#include "core/util/errors.h"
#include "test_tensors.h"

#include <QTemporaryDir>
#include <QTest>
#include <bit>
#include <cmath>
#include <functional>
#include <random>

using namespace sparsity;
using core::SparsifierConfig;
using core::SparsifierMethod;

class TestDataSparsifier : public QObject {
    Q_OBJECT

private slots:
    void addStepMaskData();
    void replacingKeepsConfigAndMask();
    void namesWithDotAreRejected();
    void squashMask();
    void stateDictRoundTripsThroughHdf5();
    void stateOfEncoding010IsRead();
    void tiesAndNan();
    void nmMatchesTheRankRuleFloat();
    void nmMatchesTheRankRuleDouble();
    void refusals_data();
    void refusals();
    void schedulers();
};

using Action = std::function<void()>;
Q_DECLARE_METATYPE(Action)

namespace {

SparsifierConfig threshold(double t)
{
    SparsifierConfig c;
    c.method = SparsifierMethod::Threshold;
    c.threshold = t;
    return c;
}

core::Tensor tensor(core::Shape shape, std::vector<float> values)
{
    return core::Tensor(core::Storage{core::DenseTensor<float>{std::move(shape), {values.begin(), values.end()}}});
}

std::vector<int> bits(const core::Mask &m) { return {m.begin(), m.end()}; }

} // namespace

void TestDataSparsifier::addStepMaskData()
{
    auto s = core::makeSparsifier(threshold(0.5));
    s->addData("w", tensor({2, 2}, {0.1f, -0.7f, 0.5f, -0.2f}));
    QCOMPARE(bits(s->mask("w")), (std::vector<int>{1, 1, 1, 1})); // all kept before step()
    s->step();
    QCOMPARE(bits(s->mask("w")), (std::vector<int>{0, 1, 1, 0}));
    const auto sparse = core::toDenseDouble(s->data("w", false));
    QCOMPARE((std::vector<double>(sparse.values.begin(), sparse.values.end())), (std::vector<double>{0, -0.7f, 0.5, 0}));
    QCOMPARE(core::toDenseDouble(s->data("w")).values[0], double(0.1f));
    QCOMPARE(s->names(), std::vector<std::string>{"w"});
}

void TestDataSparsifier::replacingKeepsConfigAndMask()
{
    auto s = core::makeSparsifier(threshold(0.5));
    s->addData("w", tensor({3}, {1, 0, 1}), threshold(0.9));
    s->step();
    QCOMPARE(bits(s->mask("w")), (std::vector<int>{1, 0, 1}));
    s->addData("w", tensor({3}, {0, 1, 0})); // same name: config (0.9) and mask kept
    QCOMPARE(s->config("w").threshold, 0.9);
    QCOMPARE(bits(s->mask("w")), (std::vector<int>{1, 0, 1}));
    s->addData("w", tensor({3}, {0, 1, 0}), std::nullopt, /*reuseMask=*/false);
    QCOMPARE(bits(s->mask("w")), (std::vector<int>{1, 1, 1}));
    QVERIFY_THROWS_EXCEPTION(core::InputError, s->addData("w", tensor({2}, {1, 1}))); // reuse needs same shape
}

void TestDataSparsifier::namesWithDotAreRejected()
{
    auto s = core::makeSparsifier(threshold(0.5));
    try {
        s->addData("layer.weight", tensor({1}, {1}));
        QFAIL("expected an InputError");
    } catch (const core::InputError &error) {
        QCOMPARE(QString(error.what()),
                 QString("sparsifier data name must not contain '.' (PyTorch's rule), but got 'layer.weight'"));
    }
}

void TestDataSparsifier::squashMask()
{
    auto s = core::makeSparsifier(threshold(0.5));
    s->addData("a", tensor({2}, {0.1f, 0.9f}));
    s->addData("b", tensor({2}, {0.1f, 0.9f}));
    s->step();
    s->squashMask({"a"});
    QCOMPARE(core::toDenseDouble(s->data("a", false)).values[0], 0.0); // mask applied
    QVERIFY_THROWS_EXCEPTION(core::InputError, s->mask("a"));
    QVERIFY_THROWS_EXCEPTION(core::InputError, s->data("a", true)); // original gone
    s->squashMask({"b"}, /*leaveParametrized=*/false);
    QCOMPARE(core::toDenseDouble(s->data("b", false)).values[0], double(0.1f)); // mask dropped unapplied
}

void TestDataSparsifier::stateDictRoundTripsThroughHdf5()
{
    SparsifierConfig dn;
    dn.method = SparsifierMethod::DataNorm;
    dn.sparsityLevel = 0.5;
    dn.blockRows = 2;
    dn.blockCols = 2;
    dn.zerosPerBlock = 3;
    dn.norm = core::BlockNorm::L2;
    auto s = core::makeSparsifier(dn);
    s->addData("emb", core::Tensor(core::Storage{test::randomDense<float>({6, 8}, 1.0, 4)}));
    s->addData("bias", tensor({4}, {0.1f, 2, 0.3f, 4}), threshold(1.0));
    s->step();
    s->squashMask({"bias"});
    QTemporaryDir dir;
    const auto path = dir.filePath("state.h5").toStdString();
    {
        auto file = core::H5File::create(path);
        core::writeSparsifierState(file, "/state", s->stateDict());
        file.close();
    }
    auto restored = core::makeSparsifier(threshold(0.1));
    restored->loadStateDict(core::readSparsifierState(core::H5File::openRead(path), "/state"));
    QCOMPARE(restored->names(), (std::vector<std::string>{"emb", "bias"}));
    QVERIFY(restored->mask("emb") == s->mask("emb"));
    QCOMPARE(restored->config("emb").zerosPerBlock, std::optional<std::int64_t>(3));
    QCOMPARE(restored->config("emb").norm, core::BlockNorm::L2);
    QCOMPARE(restored->config("bias").threshold, 1.0);
    QVERIFY_THROWS_EXCEPTION(core::InputError, restored->mask("bias")); // was squashed
    restored->step();                                                   // and it keeps working
    QVERIFY(restored->mask("emb") == s->mask("emb"));
}

// 0.1.0 wrote every method's parameters and data-norm's block as block_rows and block_cols.
void TestDataSparsifier::stateOfEncoding010IsRead()
{
    SparsifierConfig dn;
    dn.method = SparsifierMethod::DataNorm;
    dn.blockRows = 2;
    dn.blockCols = 2;
    auto s = core::makeSparsifier(dn);
    s->addData("emb", core::Tensor(core::Storage{test::randomDense<float>({6, 8}, 1.0, 4)}));
    s->step();
    QTemporaryDir dir;
    const auto path = dir.filePath("state.h5").toStdString();
    {
        auto file = core::H5File::create(path);
        core::writeSparsifierState(file, "/state", s->stateDict());
        const auto group = core::openObject(file, "/state/emb");
        QVERIFY(H5Adelete(group.id(), "block") >= 0);
        core::writeIntArrayAttribute(group.id(), "block_rows", {2});
        core::writeIntArrayAttribute(group.id(), "block_cols", {2});
        core::writeDoubleAttribute(group.id(), "threshold", 7.0);
        file.close();
    }
    const auto state = core::readSparsifierState(core::H5File::openRead(path), "/state");
    QCOMPARE(state.at(0).config.blockRows, std::int64_t(2));
    QCOMPARE(state.at(0).config.blockCols, std::int64_t(2));
    QCOMPARE(state.at(0).config.threshold, 0.0); // another method's parameter is not data-norm's
}

void TestDataSparsifier::tiesAndNan()
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    QCOMPARE(bits(core::computeMask(tensor({3}, {nan, 0.2f, -3}), threshold(1.0))), (std::vector<int>{1, 0, 1}));
    SparsifierConfig nm;
    nm.method = SparsifierMethod::NM;
    nm.n = 2;
    nm.m = 4;
    QCOMPARE(bits(core::computeMask(tensor({8}, {1, -1, 1, 0.5f, nan, 0, 0, 0}), nm)),
             (std::vector<int>{1, 1, 0, 0, 1, 1, 0, 0})); // ties to the lower index; NaN largest
    SparsifierConfig rows;
    rows.method = SparsifierMethod::RowNorm;
    rows.keep = 0.5;
    QCOMPARE(bits(core::computeMask(tensor({4, 1}, {1, 3, -3, 2}), rows)), (std::vector<int>{0, 1, 1, 0}));
}

namespace {

// n-m's rule written out: element i of a group of m is kept when fewer than n elements beat it,
// j beating i when |x_j| > |x_i| with NaN largest (NaNs equal), or when they are equal and j < i.
template <class T>
std::vector<std::uint8_t> nmByTheRule(const std::vector<T> &x, std::int64_t n, std::int64_t m)
{
    const auto less = [](T a, T b) { return !std::isnan(a) && (std::isnan(b) || a < b); };
    std::vector<std::uint8_t> mask(x.size());
    for (std::size_t g = 0; g < x.size(); g += static_cast<std::size_t>(m))
        for (std::int64_t i = 0; i < m; ++i) {
            const T a = std::abs(x[g + static_cast<std::size_t>(i)]);
            std::int64_t beaten = 0;
            for (std::int64_t j = 0; j < m; ++j) {
                const T b = std::abs(x[g + static_cast<std::size_t>(j)]);
                beaten += less(a, b) || (j < i && !less(b, a));
            }
            mask[g + static_cast<std::size_t>(i)] = beaten < n;
        }
    return mask;
}

// nmMask against the rule, for the unrolled group sizes (4, 8, 16) and others (1, 5, 70), on
// groups of few distinct magnitudes (many ties), +-0, +-inf and NaNs of several payloads and
// both signs; enough groups for the kernel's parallel path.
template <class T>
void nmMatchesTheRankRule()
{
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    std::mt19937_64 rng(11);
    const T nan = std::numeric_limits<T>::quiet_NaN();
    const std::vector<T> specials{T(0),
                                  -T(0),
                                  std::numeric_limits<T>::infinity(),
                                  -std::numeric_limits<T>::infinity(),
                                  nan,
                                  -nan,
                                  std::bit_cast<T>(std::bit_cast<Bits>(nan) | Bits{5}),
                                  T(1),
                                  T(-1),
                                  T(2),
                                  T(0.5)};
    for (const std::int64_t m : {1, 4, 5, 8, 16, 70})
        for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, m / 2, m - 1, m}) {
            const std::int64_t groups = 40000 / m + 1;
            std::vector<T> x(static_cast<std::size_t>(groups * m));
            for (auto &v : x)
                v = rng() % 3 == 0 ? specials[rng() % specials.size()] : static_cast<T>(static_cast<int>(rng() % 7) - 3);
            std::vector<std::uint8_t> mask(x.size(), 2);
            core::nmMask(x.data(), mask.data(), groups, n, m);
            QVERIFY2(mask == nmByTheRule(x, n, m), qPrintable(QString("%1:%2").arg(n).arg(m)));
        }
}

} // namespace

void TestDataSparsifier::nmMatchesTheRankRuleFloat() { nmMatchesTheRankRule<float>(); }
void TestDataSparsifier::nmMatchesTheRankRuleDouble() { nmMatchesTheRankRule<double>(); }

void TestDataSparsifier::refusals_data()
{
    QTest::addColumn<Action>("action");
    QTest::addColumn<QString>("message");
    auto config = [](auto edit) {
        return Action([edit] {
            SparsifierConfig c;
            edit(c);
            c.validate();
        });
    };
    QTest::newRow("zeros per block > block") << config([](auto &c) {
        c.method = SparsifierMethod::DataNorm;
        c.zerosPerBlock = 5;
    }) << "zeros_per_block must be at most the block size 4, but got 5";
    QTest::newRow("zeros per block < 0") << config([](auto &c) {
        c.method = SparsifierMethod::DataNorm;
        c.zerosPerBlock = -1;
    }) << "zeros_per_block must be >= 0, but got -1";
    QTest::newRow("level > 1") << config([](auto &c) {
        c.method = SparsifierMethod::DataNorm;
        c.sparsityLevel = 1.5;
    }) << "sparsity_level must be in [0, 1], but got 1.5";
    QTest::newRow("level < 0") << config([](auto &c) {
        c.method = SparsifierMethod::DataNorm;
        c.sparsityLevel = -0.1;
    }) << "sparsity_level must be in [0, 1], but got -0.1";
    QTest::newRow("block 0") << config([](auto &c) {
        c.method = SparsifierMethod::DataNorm;
        c.blockRows = 0;
    }) << "block must have positive extents, but got 0x4";
    QTest::newRow("threshold nan") << config([](auto &c) { c.threshold = std::nan(""); }) << "threshold must be a number >= 0";
    QTest::newRow("threshold < 0") << config([](auto &c) { c.threshold = -1; }) << "threshold must be a number >= 0, but got -1";
    QTest::newRow("N > M") << config([](auto &c) {
        c.method = SparsifierMethod::NM;
        c.n = 5;
    }) << "n must be at most m (4), but got 5";
    QTest::newRow("keep > 1") << config([](auto &c) {
        c.method = SparsifierMethod::RowNorm;
        c.keep = 2;
    }) << "keep must be in [0, 1]";
    QTest::newRow("block text") << Action([] { core::parseBlockShape("4"); }) << "block must be ROWSxCOLS";
    QTest::newRow("unknown method") << Action([] { core::parseMethod("magnitude"); })
                                    << "method must be one of threshold, data-norm, n-m, row-norm, but got 'magnitude'";
    QTest::newRow("schedule") << Action([] { core::parseSchedule("cubic:0,1"); }) << "schedule must be cubic:";
    QTest::newRow("n-m last dim") << Action([] {
        SparsifierConfig c;
        c.method = SparsifierMethod::NM;
        core::computeMask(tensor({6}, {1, 2, 3, 4, 5, 6}), c);
    }) << "the last dim (6) must be a multiple of M=4";
    QTest::newRow("row-norm 0-d") << Action([] {
        SparsifierConfig c;
        c.method = SparsifierMethod::RowNorm;
        core::computeMask(tensor({}, {2}), c);
    }) << "row-norm data must have rank >= 1, but got a 0-d tensor";
    QTest::newRow("n-m 0-d") << Action([] { // the rank rule first, as sparsify's file path says it
        SparsifierConfig c;
        c.method = SparsifierMethod::NM;
        core::computeMask(tensor({}, {2}), c);
    }) << "n-m data must have rank >= 1, but got a 0-d tensor";
}

void TestDataSparsifier::refusals()
{
    QFETCH(Action, action);
    QFETCH(QString, message);
    try {
        action();
        QFAIL("expected an InputError");
    } catch (const core::InputError &error) {
        QVERIFY2(QString(error.what()).contains(message), error.what());
    }
}

void TestDataSparsifier::schedulers()
{
    const core::LinearScheduler linear(0.0, 0.8, 10, 20);
    QCOMPARE(linear.level(0), 0.0);
    QCOMPARE(linear.level(15), 0.4);
    QCOMPARE(linear.level(99), 0.8);
    const core::ListScheduler list({0.1, 0.2, 0.4});
    QCOMPARE(list.curve(0, 4), (std::vector<double>{0.1, 0.2, 0.4, 0.4, 0.4}));
    QCOMPARE(core::parseSchedule("cubic:0.1,0.9,5,2,10,zero")->level(0), 0.0);
    QCOMPARE(core::parseSchedule("linear:0,1,0,4")->level(1), 0.25);
}

QTEST_GUILESS_MAIN(TestDataSparsifier)
#include "tst_data_sparsifier.moc"
