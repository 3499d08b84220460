// Export and Save as batch run one recipe: what the GUI exports equals what `sparsity run`
// writes from the BATCH.json the GUI saved (docs/CLI.md, issue 8). A cancelled export writes
// nothing and leaves the document unchanged; a failed one reports the file in the Issues
// dock.
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/pipeline/batch_recipe.h"
#include "core/sparsify/data_sparsifier.h"
#include "core/tensor/tensor_ops.h"
#include "ui/dialogs/export_dialog.h"
#include "ui/document/tensor_document.h"
#include "ui/jobs/document_jobs.h"
#include "ui/jobs/job_runner.h"
#include "ui/mainwindow/main_window.h"
#include "ui/models/issues_model.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

namespace core = sparsity::core;
namespace ui = sparsity::ui;

class TestExportAndBatch : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests")); }
    void savedBatchReplaysToTheExportedFile_data();
    void savedBatchReplaysToTheExportedFile();
    void perDatasetRecipesReplayToTheExportedFile();
    void cancelledExportWritesNothing();
    void failedExportGoesToIssues();
    void noRecipeNoBatch();
    void exportDialogRefusesWhatWouldFail();
    void batchRefusesAMisfit();
    void issuesAreCountedAndShown();
};

namespace {

const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

// Runs an export to the end; returns the finished() arguments.
QList<QVariant> exportAndWait(ui::MainWindow &window, const QString &output)
{
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    if (!window.documentJobs()->startExport(output) || !finished.wait(60000))
        return {};
    return finished.takeFirst();
}

// Every element of two files: same names, layouts, shapes and values (bit for bit).
void compareFiles(const QString &a, const QString &b)
{
    const auto fa = core::H5File::openRead(a.toStdString()), fb = core::H5File::openRead(b.toStdString());
    const auto ea = core::listElements(fa), eb = core::listElements(fb);
    QCOMPARE(ea.size(), eb.size());
    for (std::size_t i = 0; i < ea.size(); ++i) {
        QCOMPARE(ea[i].path, eb[i].path);
        const auto ta = core::readTensor(fa, ea[i].path), tb = core::readTensor(fb, eb[i].path);
        QVERIFY2(ta.layout() == tb.layout(), ea[i].path.c_str());
        QVERIFY2(ta.shape() == tb.shape(), ea[i].path.c_str());
        QVERIFY2(ta.isMasked() == tb.isMasked(), ea[i].path.c_str());
        const auto va = core::toDenseDouble(ta).values, vb = core::toDenseDouble(tb).values;
        QVERIFY2(std::equal(va.begin(), va.end(), vb.begin(), vb.end()), ea[i].path.c_str());
    }
}

// `sparsity run BATCH` writes `cli/sample.h5` beside the batch, equal to `exported`.
void replayEquals(const QString &batch, const QString &exported)
{
    QProcess cli;
    cli.start(QStringLiteral(SPARSITY_CLI), {QStringLiteral("run"), batch});
    QVERIFY(cli.waitForFinished(60000));
    QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
    compareFiles(exported, QFileInfo(batch).dir().filePath(QStringLiteral("cli/sample.h5")));
}

} // namespace

void TestExportAndBatch::savedBatchReplaysToTheExportedFile_data()
{
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("layout");
    QTest::addColumn<QStringList>("datasets");
    QTest::addColumn<int>("gzip");
    QTest::newRow("threshold csr gzip") << "threshold"
                                        << "csr" << QStringList{"/emb", "/W"} << 4;
    QTest::newRow("data-norm masked") << "data-norm"
                                      << "masked" << QStringList{"/emb"} << 0;
    QTest::newRow("n-m coo") << "n-m"
                             << "coo" << QStringList{"/emb", "/pixels"} << 0;
    QTest::newRow("row-norm row_sparse") << "row-norm"
                                         << "row_sparse" << QStringList{"/emb"} << 1;
}

void TestExportAndBatch::savedBatchReplaysToTheExportedFile()
{
    QFETCH(QString, method);
    QFETCH(QString, layout);
    QFETCH(QStringList, datasets);
    QFETCH(int, gzip);
    QTemporaryDir dir;
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    auto *document = window.document();
    core::SparsifierConfig config;
    config.method = core::parseMethod(method.toStdString());
    config.threshold = 4.0;
    config.sparsityLevel = 0.3;
    config.blockRows = 2;
    config.keep = 0.25;
    document->changeSparsifier(config);
    document->changeExportSettings({datasets, layout, gzip});

    const QString exported = dir.filePath(QStringLiteral("gui.h5"));
    const auto finished = exportAndWait(window, exported);
    QVERIFY(!finished.isEmpty());
    QVERIFY2(finished.at(0).toBool(), qPrintable(finished.at(2).toString()));

    const QString batch = dir.filePath(QStringLiteral("batch.json"));
    QVERIFY(window.saveBatch(batch, QStringLiteral("cli/{stem}.h5")));
    const auto recipe = core::parseBatch(batch.toStdString());
    QCOMPARE(recipe.gzipLevel, gzip);
    QCOMPARE(QString::fromStdString(recipe.layout), layout);
    QCOMPARE(core::listElements(core::H5File::openRead(exported.toStdString())).size(),
             static_cast<std::size_t>(datasets.size()));
    replayEquals(batch, exported);
    QCOMPARE(window.issuesModel()->count(ui::Issue::Severity::Error), 0);
}

void TestExportAndBatch::perDatasetRecipesReplayToTheExportedFile()
{
    QTemporaryDir dir;
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    auto *document = window.document();
    core::SparsifierConfig threshold;
    threshold.threshold = 4.0;
    document->changeSparsifier(threshold);
    QVERIFY(window.selectElement(QStringLiteral("/W")));
    document->changeOwnSparsifier(true);
    core::SparsifierConfig nm;
    nm.method = core::SparsifierMethod::NM;
    nm.n = 1;
    nm.m = 2;
    document->changeSparsifier(nm);
    QVERIFY(document->sharedSparsifier()->method == core::SparsifierMethod::Threshold);
    document->changeExportSettings({{"/emb", "/W", "/pixels"}, "csr", 0});

    const QString exported = dir.filePath(QStringLiteral("gui.h5"));
    const auto finished = exportAndWait(window, exported);
    QVERIFY(!finished.isEmpty());
    QVERIFY2(finished.at(0).toBool(), qPrintable(finished.at(2).toString()));
    // /W got its own recipe: exactly the N:M 1:2 mask of the original, squashed.
    const auto original = core::readTensor(core::H5File::openRead(kSample.toStdString()), "/W");
    const auto kept = core::computeMask(original, nm);
    const auto values = core::toDenseDouble(original).values;
    const auto w = core::toDenseDouble(core::readTensor(core::H5File::openRead(exported.toStdString()), "/W")).values;
    QCOMPARE(w.size(), values.size());
    for (std::size_t i = 0; i < w.size(); ++i)
        QCOMPARE(w[i], kept[i] ? values[i] : 0.0);

    const QString batch = dir.filePath(QStringLiteral("batch.json"));
    QVERIFY(window.saveBatch(batch, QStringLiteral("cli/{stem}.h5")));
    const auto recipe = core::parseBatch(batch.toStdString());
    QVERIFY(recipe.sparsify->config.method == core::SparsifierMethod::Threshold);
    QCOMPARE(recipe.sparsify->perDataset.size(), std::size_t{1});
    QVERIFY(recipe.sparsify->perDataset.at("/W").method == core::SparsifierMethod::NM);
    replayEquals(batch, exported);
}

void TestExportAndBatch::cancelledExportWritesNothing()
{
    QTemporaryDir dir;
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    auto *document = window.document();
    document->changeThreshold(2.0);
    const auto values = document->values().values;
    const int history = document->undoStack()->count();

    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    const QString output = dir.filePath(QStringLiteral("cancelled.h5"));
    QVERIFY(window.documentJobs()->startExport(output));
    window.jobs()->cancel(); // before the first dataset: the core stops at its first checkpoint
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().at(0).toBool(), false);
    QCOMPARE(finished.first().at(1).toBool(), true);
    QVERIFY(!QFile::exists(output));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{}); // no temp file left either
    QCOMPARE(document->values().values, values);
    QCOMPARE(document->undoStack()->count(), history);
    QCOMPARE(window.issuesModel()->rowCount(), 0);
}

void TestExportAndBatch::failedExportGoesToIssues()
{
    QTemporaryDir dir;
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    core::SparsifierConfig config;
    config.method = core::SparsifierMethod::NM;
    config.n = 1;
    config.m = 3; // /emb has 64 columns: not groups of 3
    window.document()->changeSparsifier(config);
    window.document()->changeExportSettings({{QStringLiteral("/emb")}, QStringLiteral("dense"), 0});
    const QString output = dir.filePath(QStringLiteral("failed.h5"));
    const auto finished = exportAndWait(window, output);
    QVERIFY(!finished.isEmpty());
    QCOMPARE(finished.at(0).toBool(), false);
    QVERIFY(!QFile::exists(output));
    QCOMPARE(window.issuesModel()->rowCount(), 1);
    QVERIFY2(window.issuesModel()->issue(0).summary().contains(QStringLiteral("sample.h5")),
             qPrintable(window.issuesModel()->issue(0).summary()));
    // An error, located at the element the recipe did not fit, so the Issues dock can jump there.
    const auto &issue = window.issuesModel()->issue(0);
    QCOMPARE(issue.severity, ui::Issue::Severity::Error);
    QCOMPARE(issue.location, (ui::ElementRef{QFileInfo(kSample).absoluteFilePath(), QStringLiteral("/emb")}));
    QVERIFY2(issue.text.startsWith(QStringLiteral("Export: ")) && issue.text.contains(QStringLiteral("M=3")),
             qPrintable(issue.text));
}

void TestExportAndBatch::noRecipeNoBatch()
{
    QTemporaryDir dir;
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    window.document()->changeSparsifier(std::nullopt);
    const QString batch = dir.filePath(QStringLiteral("batch.json"));
    QVERIFY(!window.saveBatch(batch, QStringLiteral("{stem}.out.h5")));
    QVERIFY(!QFile::exists(batch));
    QVERIFY(window.issuesModel()->issue(0).summary().contains(QStringLiteral("no sparsifier")));
}

namespace {

core::SparsifierConfig nm24()
{
    core::SparsifierConfig config;
    config.method = core::SparsifierMethod::NM;
    config.n = 2;
    config.m = 4;
    return config;
}

} // namespace

void TestExportAndBatch::exportDialogRefusesWhatWouldFail()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    window.document()->changeSparsifier(nm24());
    // /W is 64 x 10 and /labels 1797 long: not groups of 4 along their last dim.
    const QMap<QString, QString> misfits{{QStringLiteral("/W"), QStringLiteral("the last dim (10) must be a multiple of M=4")}};
    ui::ExportDialog dialog({QStringLiteral("/emb"), QStringLiteral("/W")}, misfits, *window.document(),
                            QStringLiteral("out.h5"));
    auto *list = dialog.findChild<QListWidget *>(QStringLiteral("export.datasets"));
    auto *exportButton = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    QCOMPARE(list->item(0)->checkState(), Qt::Checked);
    QCOMPARE(list->item(1)->checkState(), Qt::Unchecked); // does not fit: not pre-ticked
    QVERIFY(list->item(1)->text().contains(QStringLiteral("multiple of M=4")));
    QVERIFY(dialog.problem().isEmpty());
    QVERIFY(exportButton->isEnabled());
    QCOMPARE(dialog.settings().datasets, QStringList{QStringLiteral("/emb")});
    list->item(1)->setCheckState(Qt::Checked);
    QVERIFY2(dialog.problem().contains(QStringLiteral("/W")) && dialog.problem().contains(QStringLiteral("multiple of M=4")),
             qPrintable(dialog.problem()));
    QVERIFY(!exportButton->isEnabled());
    list->item(0)->setCheckState(Qt::Unchecked);
    list->item(1)->setCheckState(Qt::Unchecked);
    QVERIFY(dialog.problem().contains(QStringLiteral("Tick at least one")));
    QVERIFY(!exportButton->isEnabled());
}

void TestExportAndBatch::batchRefusesAMisfit()
{
    QTemporaryDir dir;
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    window.document()->changeSparsifier(nm24());
    const QString batch = dir.filePath(QStringLiteral("batch.json"));
    // Every dataset (the default) includes /W and /labels: refused, naming them and why.
    QVERIFY(!window.saveBatch(batch, QStringLiteral("{stem}.out.h5")));
    QVERIFY(!QFile::exists(batch));
    const QString issue = window.issuesModel()->issue(0).summary();
    QVERIFY2(issue.contains(QStringLiteral("/W: the recipe does not fit it")) && issue.contains(QStringLiteral("/labels")),
             qPrintable(issue));
    QVERIFY(!issue.contains(QStringLiteral("/emb:")));
    window.document()->changeExportSettings({{QStringLiteral("/emb"), QStringLiteral("/pixels")}, QStringLiteral("dense"), 0});
    QVERIFY(window.saveBatch(batch, QStringLiteral("{stem}.out.h5")));
    QVERIFY(QFile::exists(batch));
}

void TestExportAndBatch::issuesAreCountedAndShown()
{
    ui::MainWindow window;
    auto *dock = window.findChild<QDockWidget *>(QStringLiteral("IssuesDock"));
    QCOMPARE(dock->windowTitle(), QStringLiteral("Issues"));
    QVERIFY(!window.openFile(QStringLiteral("/nonexistent/a.h5")));
    QVERIFY(!window.openFile(QStringLiteral("/nonexistent/b.h5")));
    QCOMPARE(dock->windowTitle(), QStringLiteral("Issues (2 errors)"));
    QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("b.h5")),
             qPrintable(window.statusBar()->currentMessage()));
    // The same error again counts on its row, and the status bar still says it.
    QVERIFY(!window.openFile(QStringLiteral("/nonexistent/a.h5")));
    QCOMPARE(window.issuesModel()->rowCount(), 2);
    QCOMPARE(window.issuesModel()->issue(0).repeats, 2);
    QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("a.h5")),
             qPrintable(window.statusBar()->currentMessage()));
    dock->findChild<QAction *>(QStringLiteral("action.issues.clear"))->trigger();
    QCOMPARE(dock->windowTitle(), QStringLiteral("Issues"));
}

QTEST_MAIN(TestExportAndBatch)
#include "tst_export_and_batch.moc"
