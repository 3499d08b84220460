// The memory budget (core/util/memory_budget.h): sizes and "auto" parsed or refused with the
// option named, the auto budget bounded by what /proc and the cgroup say, the whole-tensor
// check, and the peak resident memory the --json reports carry.
#include "core/util/errors.h"
#include "core/util/memory_budget.h"

#include <QTest>
#include <cstdlib>

using namespace sparsity;

// How far the memory available may move between two reads while other processes run.
constexpr std::int64_t kAvailableDrift = std::int64_t{256} << 20;

class TestMemoryBudget : public QObject {
    Q_OBJECT

private slots:
    void sizes();
    void refusals_data();
    void refusals();
    void autoIsHalfOfAvailable();
    void wholeTensorBudget();
    void peakResident();
};

void TestMemoryBudget::sizes()
{
    QCOMPARE(core::parseMemorySize("1000", "memory_limit"), std::int64_t{1000});
    QCOMPARE(core::parseMemorySize("64K", "memory_limit"), std::int64_t{64} << 10);
    QCOMPARE(core::parseMemorySize("512M", "memory_limit"), std::int64_t{512} << 20);
    QCOMPARE(core::parseMemorySize("1.5GiB", "memory_limit"), std::int64_t{3} << 29);
    QCOMPARE(core::parseMemoryLimit("2G", "memory_limit"), std::optional<std::int64_t>(std::int64_t{2} << 30));
    QVERIFY(!core::parseMemoryLimit("auto", "memory_limit"));
    QCOMPARE(core::resolveMemoryLimit(std::int64_t{4096}), std::int64_t{4096});
    // auto reads the memory available now, which moves between two reads on a busy machine.
    QVERIFY(std::abs(core::resolveMemoryLimit(std::nullopt) - core::autoMemoryBudget()) <= kAvailableDrift);
    QCOMPARE(core::formatBytes(std::int64_t{3} << 29), std::string("1.5 GiB"));
    QCOMPARE(core::formatBytes(12), std::string("12 B"));
}

void TestMemoryBudget::refusals_data()
{
    QTest::addColumn<QString>("text");
    for (const char *bad : {"12Q", "", "-5M", "0", "0.1", "M", "1e30G", "nan", "inf"})
        QTest::newRow(bad) << QString(bad);
}

void TestMemoryBudget::refusals()
{
    QFETCH(QString, text);
    try {
        core::parseMemoryLimit(text.toStdString(), "memory_limit");
        QFAIL("accepted");
    } catch (const core::InputError &e) {
        QVERIFY2(QString(e.what()).startsWith("memory_limit must be a positive size such as 512M or 2G, or auto"), e.what());
    }
}

void TestMemoryBudget::autoIsHalfOfAvailable()
{
    const auto available = core::availableMemory();
    QVERIFY(available.bytes > 0);
    QVERIFY(!available.source.empty());
    QVERIFY(std::abs(core::autoMemoryBudget() - std::max<std::int64_t>(std::int64_t{16} << 20, available.bytes / 2))
            <= kAvailableDrift);
    QVERIFY(core::autoMemoryBudgetDescription().find(available.source) != std::string::npos);
}

void TestMemoryBudget::wholeTensorBudget()
{
    core::setWholeTensorBudget(std::nullopt);
    core::requireWithinBudget(std::int64_t{1} << 50, "f.h5:/x", "reading it"); // unset: no check
    core::setWholeTensorBudget(1024);
    QCOMPARE(core::wholeTensorBudget(), std::optional<std::int64_t>(1024));
    core::requireWithinBudget(1024, "f.h5:/x", "reading it");
    try {
        core::requireWithinBudget(4096, "f.h5:/x", "reading it");
        QFAIL("accepted");
    } catch (const core::InputError &e) {
        QCOMPARE(std::string(e.what()),
                 std::string("f.h5:/x: reading it needs 4.0 KiB in memory, more than the memory limit of 1.0 KiB (1024 bytes); "
                             "raise the memory limit"));
    }
    core::setWholeTensorBudget(std::nullopt);
}

void TestMemoryBudget::peakResident()
{
    const auto before = core::peakResidentBytes();
    QVERIFY(before > 0);
    std::vector<char> touched(std::size_t{64} << 20, 1);
    QVERIFY(core::peakResidentBytes() >= before);
    QVERIFY(core::peakResidentBytes() >= std::int64_t{64} << 20);
    QCOMPARE(touched[12345], char{1});
}

QTEST_GUILESS_MAIN(TestMemoryBudget)
#include "tst_memory_budget.moc"
