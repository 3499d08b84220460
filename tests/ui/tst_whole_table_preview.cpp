// WholeTablePreview (ui/document/whole_table_preview.h), the background source of a window's
// preview under data-norm and row-norm: every answer it gives is the rows of computeMask on the
// whole table as the file holds it now, whatever came before it: a level or window change (the
// kept choice serves it), requests that supersede one another while one runs (the latest is
// answered), a request that needs another choice and then the first one again, and a file
// rewritten under the same name (ranked again, not answered from the old table).
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/sparsify/data_sparsifier.h"
#include "ui/document/whole_table_preview.h"

#include <QCoreApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <random>

namespace core = sparsity::core;
namespace ui = sparsity::ui;

class TestWholeTablePreview : public QObject {
    Q_OBJECT

private slots:
    void answersAreTheWholeTablesRows();
};

namespace {

constexpr std::int64_t kRows = 3000, kCols = 16;

// A kRows x kCols float32 table as /t of `path`, written whole to a temporary file renamed over
// it (as an Export writes).
void writeTable(const QString &path, unsigned seed)
{
    auto values = core::makeDense<float>({kRows, kCols});
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    for (auto &v : values.values)
        v = normal(rng);
    const auto temporary = path + QStringLiteral(".tmp");
    {
        auto file = core::H5File::create(temporary.toStdString());
        core::writeTensor(file, "/t", core::Tensor(core::Storage{std::move(values)}));
        file.close();
    }
    std::filesystem::rename(temporary.toStdString(), path.toStdString());
}

core::SparsifierConfig dataNorm(double level, std::int64_t blockRows = 1)
{
    core::SparsifierConfig config;
    config.method = core::SparsifierMethod::DataNorm;
    config.sparsityLevel = level;
    config.blockRows = blockRows;
    config.zerosPerBlock = 2;
    return config;
}

} // namespace

void TestWholeTablePreview::answersAreTheWholeTablesRows()
{
    QTemporaryDir dir;
    const auto path = dir.filePath(QStringLiteral("table.h5"));
    writeTable(path, 1);
    ui::WholeTablePreview preview;
    QSignalSpy ready(&preview, &ui::WholeTablePreview::ready);
    // Asks until answered; the answer must be the whole table's rows.
    const auto expectAnswer = [&](core::RowRange rows, const core::SparsifierConfig &config, const char *what) {
        auto answer = preview.maskOf(path, QStringLiteral("/t"), rows, config);
        for (int turn = 0; answer.pending && turn < 50; ++turn) {
            QVERIFY2(ready.wait(30000), what);
            answer = preview.maskOf(path, QStringLiteral("/t"), rows, config);
        }
        QVERIFY2(answer.mask, qPrintable(QString::fromUtf8(what) + QStringLiteral(": ") + answer.why));
        const auto whole = core::computeMask(core::readTensor(core::H5File::openRead(path.toStdString()), "/t"), config);
        QVERIFY2(std::equal(answer.mask->begin(), answer.mask->end(), whole.begin() + rows.begin * kCols)
                     && static_cast<std::int64_t>(answer.mask->size()) == rows.count() * kCols,
                 what);
    };

    const core::RowRange first{0, 1000}, later{1501, 2501};
    QVERIFY(preview.maskOf(path, QStringLiteral("/t"), first, dataNorm(0.5)).pending);
    expectAnswer(first, dataNorm(0.5), "the first request");
    expectAnswer(first, dataNorm(0.3), "another level");
    expectAnswer(later, dataNorm(0.3), "another window");
    // Asked again, an answer comes at once.
    QVERIFY(preview.maskOf(path, QStringLiteral("/t"), later, dataNorm(0.3)).mask);

    // Requests that supersede one another: the latest is answered.
    QVERIFY(preview.maskOf(path, QStringLiteral("/t"), first, dataNorm(0.7)).pending);
    QVERIFY(preview.maskOf(path, QStringLiteral("/t"), later, dataNorm(0.6)).pending);
    expectAnswer(later, dataNorm(0.8), "the latest of three");

    // Another choice (taller blocks) cancels the one running; back to the first, it is answered.
    QVERIFY(preview.maskOf(path, QStringLiteral("/t"), first, dataNorm(0.4, 3)).pending);
    QVERIFY(preview.maskOf(path, QStringLiteral("/t"), first, dataNorm(0.4)).pending);
    QVERIFY(preview.maskOf(path, QStringLiteral("/t"), first, dataNorm(0.4, 3)).pending);
    expectAnswer(first, dataNorm(0.4, 3), "back to the first of two choices");

    // The file rewritten under its name: not answered from the old table.
    writeTable(path, 2);
    QVERIFY(preview.maskOf(path, QStringLiteral("/t"), first, dataNorm(0.4, 3)).pending);
    expectAnswer(first, dataNorm(0.4, 3), "the rewritten file");

    // Gone: refused with why, not pending.
    QFile::remove(path);
    auto gone = preview.maskOf(path, QStringLiteral("/t"), first, dataNorm(0.5));
    for (int turn = 0; gone.pending && turn < 50; ++turn) {
        QVERIFY(ready.wait(30000));
        gone = preview.maskOf(path, QStringLiteral("/t"), first, dataNorm(0.5));
    }
    QVERIFY(!gone.mask && !gone.why.isEmpty());
}

QTEST_GUILESS_MAIN(TestWholeTablePreview)
#include "tst_whole_table_preview.moc"
