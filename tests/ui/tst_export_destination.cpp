// File > Export Sparsified starts from where the last export went (kept in QSettings across
// sessions): the same path when the same input is exported again, that folder for another
// input. Settings are this test's own (organization sparsity-tests-export-destination).
#include "ui/dialogs/export_destination.h"
#include "ui/dialogs/export_dialog.h"
#include "ui/document/tensor_document.h"
#include "ui/jobs/job_runner.h"
#include "ui/mainwindow/main_window.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

namespace ui = sparsity::ui;

class TestExportDestination : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests-export-destination")); }
    void init() { QSettings().clear(); }
    void cleanupTestCase() { QSettings().clear(); }
    void suggestionFollowsTheLastExport();
    void dialogStartsFromTheLastExport();
    void anExistingFileIsReplacedOnlyWhenConfirmed();
    void aFileOpenedWithNoTensorShownExports();
};

namespace {

const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

// Opens File > Export Sparsified; `act` gets the dialog while it is shown and closes it.
void withExportDialog(ui::MainWindow &window, const std::function<void(ui::ExportDialog *)> &act)
{
    bool seen = false;
    QTimer::singleShot(0, &window, [&] {
        auto *dialog = qobject_cast<ui::ExportDialog *>(QApplication::activeModalWidget());
        if (!dialog) {
            if (auto *other = QApplication::activeModalWidget())
                other->close(); // or exec() below would wait for ever
            QFAIL("no export dialog shown");
        }
        seen = true;
        act(dialog);
        if (dialog->isVisible())
            dialog->reject();
    });
    window.findChild<QAction *>(QStringLiteral("action.file.export"))->trigger();
    QVERIFY(seen);
}

} // namespace

void TestExportDestination::suggestionFollowsTheLastExport()
{
    // Before any export: beside the input.
    QCOMPARE(ui::suggestedExportPath(QStringLiteral("/data/in/cells.h5")), QStringLiteral("/data/in/cells.sparsified.h5"));
    ui::rememberExportPath(QStringLiteral("/data/in/cells.h5"), QStringLiteral("/results/run3.h5"));
    // The same input again: the same output.
    QCOMPARE(ui::suggestedExportPath(QStringLiteral("/data/in/cells.h5")), QStringLiteral("/results/run3.h5"));
    // Another input: its own name, in the folder last exported to.
    QCOMPARE(ui::suggestedExportPath(QStringLiteral("/data/in/genes.h5")), QStringLiteral("/results/genes.sparsified.h5"));
}

void TestExportDestination::dialogStartsFromTheLastExport()
{
    QTemporaryDir dir;
    const QString chosen = dir.filePath(QStringLiteral("chosen.h5"));
    {
        ui::MainWindow window;
        QVERIFY(window.openFile(kSample));
        QVERIFY(window.selectElement(QStringLiteral("/emb")));
        window.document()->changeThreshold(0.5);
        QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
        withExportDialog(window, [&](ui::ExportDialog *dialog) {
            QCOMPARE(dialog->outputPath(), QFileInfo(kSample).absolutePath() + QStringLiteral("/sample.sparsified.h5"));
            dialog->findChild<QLineEdit *>(QStringLiteral("export.output"))->setText(chosen);
            dialog->accept();
        });
        QVERIFY(finished.wait(60000));
        QVERIFY(QFileInfo::exists(chosen));
    }
    // Another session: the dialog starts from the path chosen last time.
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    withExportDialog(window, [&](ui::ExportDialog *dialog) { QCOMPARE(dialog->outputPath(), chosen); });
}

// Export onto a file that exists asks first; No keeps the dialog (and the file), Replace goes on.
void TestExportDestination::anExistingFileIsReplacedOnlyWhenConfirmed()
{
    QTemporaryDir dir;
    const QString existing = dir.filePath(QStringLiteral("earlier.h5"));
    {
        QFile file(existing);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("an earlier export");
    }
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    window.document()->changeThreshold(0.5);
    QSignalSpy started(window.jobs(), &ui::JobRunner::started);
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    for (const auto answer : {QMessageBox::No, QMessageBox::Yes}) {
        withExportDialog(window, [&](ui::ExportDialog *dialog) {
            dialog->findChild<QLineEdit *>(QStringLiteral("export.output"))->setText(existing);
            int asked = 0;
            QTimer::singleShot(0, dialog, [&] {
                auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
                QVERIFY(box && box->objectName() == QStringLiteral("export.replace"));
                QVERIFY(box->text().contains(existing));
                ++asked;
                box->button(answer)->click();
            });
            dialog->accept();
            QCOMPARE(asked, 1);
            QCOMPARE(dialog->isVisible(), answer == QMessageBox::No);
        });
        if (answer == QMessageBox::No)
            QCOMPARE(started.count(), 0);
    }
    QVERIFY(finished.wait(60000));
    QCOMPARE(started.count(), 1);
    QVERIFY(QFileInfo(existing).size() > 1000); // the export replaced it
}

// Opened, its row current, no tensor shown yet: Export offers that file's datasets and a name
// beside it (it listed none and offered "/dir/.sparsified.h5").
void TestExportDestination::aFileOpenedWithNoTensorShownExports()
{
    QTemporaryDir dir;
    const QString input = dir.filePath(QStringLiteral("cells.h5"));
    QVERIFY(QFile::copy(kSample, input));
    ui::MainWindow window;
    QVERIFY(window.openFile(input));
    QVERIFY(!window.document()->hasTensor());
    window.document()->changeThreshold(0.5);
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    withExportDialog(window, [&](ui::ExportDialog *dialog) {
        QCOMPARE(dialog->outputPath(), dir.filePath(QStringLiteral("cells.sparsified.h5")));
        QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));
        QVERIFY(dialog->settings().datasets.isEmpty()); // every dataset ticked
        dialog->accept();
    });
    QVERIFY(finished.wait(60000));
    QVERIFY2(finished.last().at(0).toBool(), qPrintable(finished.last().at(2).toString()));
    QVERIFY(QFileInfo::exists(dir.filePath(QStringLiteral("cells.sparsified.h5"))));
}

QTEST_MAIN(TestExportDestination)
#include "tst_export_destination.moc"
