// TensorLoader: which rows a load reads, moves of the window read in the background with the
// latest winning, and the main window using HDF5 on the GUI thread while a job uses it on a
// pool thread (HDF5's serial build serialises the calls itself).
#include "core/io/h5_handle.h"
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/tensor/coo_tensor.h"
#include "ui/document/tensor_document.h"
#include "ui/document/tensor_loader.h"
#include "ui/jobs/job_runner.h"
#include "ui/mainwindow/main_window.h"
#include "ui/models/issues_model.h"
#include "ui/panels/attributes_panel.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <tuple>

using sparsity::core::ElementInfo;
using sparsity::core::Layout;
using sparsity::ui::RowWindow;
using sparsity::ui::TensorLoad;
using sparsity::ui::TensorLoader;

namespace {

const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

// rows x 64 float32, each row holding its index.
QString writeTall(const QTemporaryDir &dir, std::int64_t rows)
{
    const auto path = dir.filePath(QStringLiteral("tall.h5"));
    sparsity::core::DenseTensor<float> t{{rows, 64}, {}};
    for (std::int64_t row = 0; row < rows; ++row)
        t.values.insert(t.values.end(), 64, static_cast<float>(row));
    auto file = sparsity::core::H5File::create(path.toStdString());
    sparsity::core::writeTensor(file, "/tall", sparsity::core::Tensor(sparsity::core::Storage{t}));
    return path;
}

ElementInfo describe(const QString &file, const char *path)
{
    return sparsity::core::requireElement(sparsity::core::H5File::openRead(file.toStdString()), path);
}

} // namespace

class TestTensorLoader : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests"));
        QVERIFY(m_dir.isValid());
        m_tall = writeTall(m_dir, 70000);
        m_tallElement = describe(m_tall, "/tall");
    }

    void plansWhichRowsToRead()
    {
        ElementInfo scalar;
        auto w = TensorLoader::planWindow(scalar, true, 7);
        QCOMPARE(w.windowed, false);
        QCOMPARE(w.totalRows, std::int64_t{1});
        QCOMPARE(w.rowsLoaded, std::int64_t{1});

        ElementInfo empty;
        empty.shape = {0, 5};
        w = TensorLoader::planWindow(empty, true, 0);
        QCOMPARE(w.windowed, false);
        QCOMPARE(w.totalRows, std::int64_t{0});
        QCOMPARE(w.rowsLoaded, std::int64_t{0});
        QCOMPARE(w.rowWidth, std::int64_t{5});

        // 4 Mi elements load whole; one row more is windowed, the first row clamped so the
        // window ends at the table's end.
        ElementInfo table;
        table.shape = {65536, 64};
        QCOMPARE(TensorLoader::planWindow(table, true, 0).windowed, false);
        table.shape = {65537, 64};
        w = TensorLoader::planWindow(table, true, 100);
        QCOMPARE(w.windowed, true);
        QCOMPARE(w.rowsLoaded, std::int64_t{65536});
        QCOMPARE(w.firstRow, std::int64_t{1});
        QCOMPARE(TensorLoader::planWindow(table, true, -5).firstRow, std::int64_t{0});
        // A layout that cannot be read by rows is read whole, however large.
        w = TensorLoader::planWindow(table, false, 100);
        QCOMPARE(w.windowed, false);
        QCOMPARE(w.firstRow, std::int64_t{0});
        QCOMPARE(w.rowsLoaded, std::int64_t{65537});
    }

    void latestMoveWins()
    {
        const auto &file = m_tall;
        const auto &element = m_tallElement;
        TensorLoader loader;
        QSignalSpy loaded(&loader, &TensorLoader::loaded);
        QSignalSpy failed(&loader, &TensorLoader::failed);
        // Three moves before the first read ends: the first is read and dropped, the second is
        // never read, the third is shown.
        loader.loadInBackground(file, element, 100);
        loader.loadInBackground(file, element, 2000);
        loader.loadInBackground(file, element, 3000);
        QVERIFY(loader.isLoading());
        QVERIFY(loaded.wait(10000));
        QTest::qWait(100); // nothing else comes
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(failed.count(), 0);
        QVERIFY(!loader.isLoading());
        const auto load = loaded.at(0).at(0).value<std::shared_ptr<const TensorLoad>>();
        QCOMPARE(load->window.firstRow, std::int64_t{3000});
        QCOMPARE(load->element.path, QStringLiteral("/tall"));
        const auto &values = std::get<sparsity::core::DenseTensor<float>>(load->tensor.storage());
        QCOMPARE(values.shape.at(0), std::int64_t{65536});
        QCOMPARE(values.values.front(), 3000.0f);
        QCOMPARE(values.values.back(), 68535.0f);
    }

    void aLoadOvertakesAMove()
    {
        const auto &file = m_tall;
        const auto &element = m_tallElement;
        TensorLoader loader;
        QSignalSpy loaded(&loader, &TensorLoader::loaded);
        loader.loadInBackground(file, element, 4000);
        const auto now = loader.load(file, element, 0); // the user selected the table again
        QCOMPARE(now.window.firstRow, std::int64_t{0});
        QVERIFY(!loader.isLoading());
        QTest::qWait(500);
        QCOMPARE(loaded.count(), 0);
        // forget() drops a move too.
        loader.loadInBackground(file, element, 4000);
        loader.forget();
        QTest::qWait(500);
        QCOMPARE(loaded.count(), 0);
    }

    // A row wider than the preview reads at once is refused with why, not read (one row of
    // 400 M float32 elements took 9 GB); a row just within it loads.
    void aRowTooWideIsRefused()
    {
        QTemporaryDir dir;
        const auto path = dir.filePath(QStringLiteral("wide.h5"));
        {
            auto file = sparsity::core::H5File::create(path.toStdString());
            // One row too wide; two rows of 4 Mi elements, windowed one row at a time.
            for (const auto &[name, rows, width] : {std::tuple{"/wide", 1, TensorLoader::kMaxRowElements + 1},
                                                    std::tuple{"/fits", 2, TensorLoader::kMaxRowElements / 4}}) {
                sparsity::core::DenseTensor<float> t{{rows, width}, {}};
                t.values.assign(static_cast<std::size_t>(rows * width), 0.5f);
                sparsity::core::writeTensor(file, name, sparsity::core::Tensor(sparsity::core::Storage{std::move(t)}));
            }
        }
        TensorLoader loader;
        try {
            loader.load(path, describe(path, "/wide"), 0);
            QFAIL("a row wider than kMaxRowElements was read");
        } catch (const sparsity::core::InputError &error) {
            const QString message = QString::fromUtf8(error.what());
            QVERIFY2(message.contains(QStringLiteral("wide.h5:/wide: a row of it holds 16777217 elements")), qPrintable(message));
        }
        const auto fits = loader.load(path, describe(path, "/fits"), 0);
        QCOMPARE(fits.window.rowsLoaded, std::int64_t{1});
        QCOMPARE(fits.tensor.shape(), (sparsity::core::Shape{1, TensorLoader::kMaxRowElements / 4}));
    }

    // A coo table whose entries' rows ascend is windowed as a dense one is, its window read
    // by rows (a coo of the window's rows alone); one whose rows go back is read whole.
    void aCooTableIsWindowedWhenItsRowsAscend()
    {
        QTemporaryDir dir;
        const auto path = dir.filePath(QStringLiteral("coo.h5"));
        {
            auto file = sparsity::core::H5File::create(path.toStdString());
            for (const bool ascending : {true, false}) {
                sparsity::core::CooTensor<float> t; // 70000 x 64, row r holding r at column r % 64
                t.shape = {70000, 64};
                t.sparseDims = 2;
                t.nnz = 70000;
                t.indices.resize(2 * 70000);
                for (std::int64_t k = 0; k < t.nnz; ++k) {
                    const auto row = ascending ? k : t.nnz - 1 - k;
                    t.indices[static_cast<std::size_t>(k)] = row;
                    t.indices[static_cast<std::size_t>(t.nnz + k)] = row % 64;
                    t.values.push_back(static_cast<float>(row));
                }
                sparsity::core::writeTensor(file, ascending ? "/rows_ascend" : "/rows_go_back",
                                            sparsity::core::Tensor(sparsity::core::Storage{std::move(t)}));
            }
        }
        TensorLoader loader;
        const auto window = loader.load(path, describe(path, "/rows_ascend"), 3000);
        QVERIFY(window.window.windowed);
        QCOMPARE(window.window.firstRow, std::int64_t{3000});
        QCOMPARE(window.tensor.shape(), (sparsity::core::Shape{65536, 64}));
        const auto &coo = std::get<sparsity::core::CooTensor<float>>(window.tensor.storage());
        QCOMPARE(coo.nnz, std::int64_t{65536});
        QCOMPARE(coo.values.front(), 3000.0f); // row 3000, the window's row 0
        QCOMPARE(coo.index(0, 0), std::int64_t{0});
        QCOMPARE(coo.index(1, 0), std::int64_t{3000 % 64});
        QCOMPARE(coo.values.back(), 68535.0f);
        const auto whole = loader.load(path, describe(path, "/rows_go_back"), 3000);
        QVERIFY(!whole.window.windowed);
        QCOMPARE(whole.tensor.shape(), (sparsity::core::Shape{70000, 64}));
    }

    void aFailedMoveSaysWhy()
    {
        QTemporaryDir dir;
        const auto file = writeTall(dir, 70000);
        auto element = describe(file, "/tall");
        QVERIFY(QFile::remove(file)); // gone between the selection and the move
        TensorLoader loader;
        QSignalSpy failed(&loader, &TensorLoader::failed);
        loader.loadInBackground(file, element, 4000);
        QVERIFY(failed.wait(10000));
        QCOMPARE(failed.at(0).at(0).value<sparsity::ui::ElementRef>().path, QStringLiteral("/tall"));
        const auto error = failed.at(0).at(1).toString();
        QVERIFY2(error.contains(QStringLiteral("tall.h5")), qPrintable(error));
    }

    // While a job reads on its pool thread, the GUI thread opens files, loads tensors and lists
    // attributes at once (it used to wait for the job to end); closing a file waits, with why.
    void theWindowReadsWhileAJobRuns()
    {
        QTemporaryDir dir;
        const auto tall = writeTall(dir, 1000);
        sparsity::ui::MainWindow window;
        QVERIFY(window.openFile(kSample));
        std::atomic<bool> release{false};
        std::atomic<int> reads{0};
        const QString sample = kSample;
        QVERIFY(window.jobs()->start(QStringLiteral("Reading"), [&](const sparsity::core::ProgressCallback &) {
            const auto file = sparsity::core::H5File::openRead(sample.toStdString());
            while (!release.load()) {
                (void)sparsity::core::readTensor(file, "/emb");
                reads.fetch_add(1);
            }
            return sparsity::ui::JobRunner::Continuation{};
        }));
        QTRY_VERIFY(reads.load() > 0);
        for (const char *path : {"/emb", "/W", "/g1", "/emb"}) {
            QVERIFY(window.selectElement(QString::fromLatin1(path), kSample));
            QCOMPARE(window.document()->source().elementPath, QString::fromLatin1(path));
            QVERIFY(window.attributesPanel()->objectText().contains(QString::fromLatin1(path)));
        }
        QVERIFY(window.openFile(tall));
        QVERIFY(window.selectElement(QStringLiteral("/tall"), tall));
        QCOMPARE(window.document()->values().shape.at(0), std::int64_t{1000});
        QVERIFY(window.jobs()->isRunning());
        const int before = window.issuesModel()->rowCount();
        QVERIFY(!window.closeFile(tall));
        QCOMPARE(window.issuesModel()->rowCount(), before + 1);
        QVERIFY2(window.issuesModel()->issue(before).summary().contains(QStringLiteral("wait for Reading to finish")),
                 qPrintable(window.issuesModel()->issue(before).summary()));
        release.store(true);
        QTRY_VERIFY(!window.jobs()->isRunning());
        QVERIFY(window.closeFile(tall));
    }

private:
    // A 70,000 x 64 table the moves read (a test that removes its file writes its own).
    QTemporaryDir m_dir;
    QString m_tall;
    ElementInfo m_tallElement;
};

QTEST_MAIN(TestTensorLoader)
#include "tst_tensor_loader.moc"
