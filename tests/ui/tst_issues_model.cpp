// The Issues model and dock: issues have a severity (with its standard icon), a location and
// a message; loads and jobs feed them, errors located in the file (and element) they concern,
// and the notes core makes while reading data reach them as Notes instead of being dropped;
// activating an issue shows its element.
#include "core/io/h5_writer.h"
#include "core/sparsify/data_sparsifier.h"
#include "ui/document/tensor_document.h"
#include "ui/jobs/document_jobs.h"
#include "ui/jobs/job_runner.h"
#include "ui/mainwindow/main_window.h"
#include "ui/models/h5_browser_model.h"
#include "ui/models/issue_from_core.h"
#include "ui/models/issues_model.h"
#include "ui/panels/gradcheck_panel.h"
#include "ui/panels/issues_panel.h"

#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QIcon>
#include <QSignalSpy>
#include <QStatusBar>
#include <QStyle>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeView>
#include <fstream>

namespace core = sparsity::core;
namespace ui = sparsity::ui;
using Severity = ui::Issue::Severity;

class TestIssuesModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests")); }
    void columnsCountsAndIcons();
    void repeatedNotesAreListedOnce();
    void coreMessagesAreLocated();
    void failingLoadIsAnErrorAtTheFile();
    void exportNotesReachTheModel();
    void listingNotesReachTheModel();
    void gradcheckNotesReachTheModel();
    void activatingAnIssueShowsItsElement();
};

namespace {

const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");
const QString kSamplePath = QFileInfo(kSample).absoluteFilePath();

QImage iconImage(const QIcon &icon) { return icon.pixmap(16, 16).toImage(); }

QImage standardIconImage(QStyle::StandardPixmap pixmap) { return iconImage(QApplication::style()->standardIcon(pixmap)); }

QString dockTitle(const ui::MainWindow &window)
{
    return window.findChild<QDockWidget *>(QStringLiteral("IssuesDock"))->windowTitle();
}

// Runs an export to the end; false when it did not start or finish.
bool exportAndWait(ui::MainWindow &window, const QString &output)
{
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    return window.documentJobs()->startExport(output) && finished.wait(60000);
}

// As the mouse does it: a click, then the double-click. (QTest::mouseDClick alone sends no
// press that an item view would pair with the double-click.)
void doubleClick(QAbstractItemView *view, const QModelIndex &index)
{
    const QPoint centre = view->visualRect(index).center();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, centre);
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, centre);
}

} // namespace

void TestIssuesModel::columnsCountsAndIcons()
{
    ui::IssuesModel model;
    QCOMPARE(model.columnCount(), 3);
    QCOMPARE(model.headerData(ui::IssuesModel::SeverityColumn, Qt::Horizontal).toString(), QStringLiteral("Severity"));
    QCOMPARE(model.headerData(ui::IssuesModel::LocationColumn, Qt::Horizontal).toString(), QStringLiteral("Location"));
    QCOMPARE(model.headerData(ui::IssuesModel::MessageColumn, Qt::Horizontal).toString(), QStringLiteral("Message"));
    QVERIFY(model.countsText().isEmpty());

    QVERIFY(
        model.add({Severity::Error, {QStringLiteral("/data/sample.h5"), QStringLiteral("/emb")}, QStringLiteral("boom"), {}}));
    QVERIFY(model.add({Severity::Warning, {QStringLiteral("/data/sample.h5"), {}}, QStringLiteral("careful"), {}}));
    QVERIFY(model.add({Severity::Note, {}, QStringLiteral("by the way"), {}}));
    QVERIFY(model.add({Severity::Error, {}, QStringLiteral("boom again"), {}}));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.count(Severity::Error), 2);
    QCOMPARE(model.count(Severity::Warning), 1);
    QCOMPARE(model.count(Severity::Note), 1);
    QCOMPARE(model.countsText(), QStringLiteral("2 errors, 1 warning, 1 note"));

    // In the order reported, each stamped with when.
    const auto cell = [&model](int row, int column, int role = Qt::DisplayRole) { return model.index(row, column).data(role); };
    QCOMPARE(cell(0, ui::IssuesModel::SeverityColumn).toString(), QStringLiteral("Error"));
    QCOMPARE(cell(0, ui::IssuesModel::LocationColumn).toString(), QStringLiteral("sample.h5:/emb"));
    QCOMPARE(cell(0, ui::IssuesModel::MessageColumn).toString(), QStringLiteral("boom"));
    QVERIFY(
        cell(0, ui::IssuesModel::LocationColumn, Qt::ToolTipRole).toString().contains(QStringLiteral("/data/sample.h5:/emb")));
    QCOMPARE(model.issue(0).summary(), QStringLiteral("/data/sample.h5:/emb: boom"));
    QCOMPARE(cell(1, ui::IssuesModel::LocationColumn).toString(), QStringLiteral("sample.h5"));
    QCOMPARE(cell(2, ui::IssuesModel::LocationColumn).toString(), QString());
    QCOMPARE(cell(2, ui::IssuesModel::SeverityColumn).toString(), QStringLiteral("Note"));
    QCOMPARE(cell(3, ui::IssuesModel::MessageColumn).toString(), QStringLiteral("boom again"));
    QVERIFY(model.issue(3).time.isValid());
    QVERIFY(model.issue(3).time.secsTo(QDateTime::currentDateTime()) < 60);

    // The standard message-box icons, by severity, in the Severity column only.
    const auto icon = [&cell](int row) { return iconImage(qvariant_cast<QIcon>(cell(row, 0, Qt::DecorationRole))); };
    QVERIFY(!icon(0).isNull());
    QCOMPARE(icon(0), standardIconImage(QStyle::SP_MessageBoxCritical));
    QCOMPARE(icon(1), standardIconImage(QStyle::SP_MessageBoxWarning));
    QCOMPARE(icon(2), standardIconImage(QStyle::SP_MessageBoxInformation));
    QVERIFY(icon(0) != icon(1));
    QVERIFY(!cell(0, ui::IssuesModel::MessageColumn, Qt::DecorationRole).isValid());

    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.count(Severity::Error), 0);
    QVERIFY(model.countsText().isEmpty());
}

void TestIssuesModel::repeatedNotesAreListedOnce()
{
    // Previewing an element again notes the same conversion again: listed once. An error
    // repeated is counted on its row, wherever the row is (a jump from the Issues dock to a
    // broken element reads it again: each double-click listed its error again).
    ui::IssuesModel model;
    const ui::Issue note{Severity::Note, {kSamplePath, QStringLiteral("/labels")}, QStringLiteral("converted"), {}};
    QVERIFY(model.add(note));
    QVERIFY(!model.add(note));
    auto elsewhere = note;
    elsewhere.location.path = QStringLiteral("/g0");
    QVERIFY(model.add(elsewhere));
    const ui::Issue error{Severity::Error, {kSamplePath, {}}, QStringLiteral("failed"), {}};
    QVERIFY(model.add(error));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    auto again = error;
    again.time = QDateTime::currentDateTime().addSecs(5);
    QVERIFY(!model.add(again));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(model.issue(2).repeats, 2);
    QCOMPARE(model.issue(2).time, again.time); // the latest
    QCOMPARE(model.data(model.index(2, ui::IssuesModel::MessageColumn)).toString(), QStringLiteral("failed (2 times)"));
    QCOMPARE(model.countsText(), QStringLiteral("1 error, 2 notes"));
    // Not in a row: counted on its row too.
    QVERIFY(model.add(elsewhere) == false); // a note already listed changes nothing
    QVERIFY(model.add(ui::Issue{Severity::Error, {kSamplePath, {}}, QStringLiteral("other"), {}}));
    QVERIFY(!model.add(error));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.issue(2).repeats, 3);
    QCOMPARE(model.countsText(), QStringLiteral("2 errors, 2 notes"));
}

void TestIssuesModel::coreMessagesAreLocated()
{
    const QString file = QStringLiteral("/data/sample.h5");
    const ui::ElementRef fallback{file, {}};
    auto issue = ui::issueFromMessage(
        Severity::Error, file + QStringLiteral(":/emb: the last dim (64) must be a multiple of M=3"), {file}, fallback);
    QCOMPARE(issue.location, (ui::ElementRef{file, QStringLiteral("/emb")}));
    QCOMPARE(issue.text, QStringLiteral("the last dim (64) must be a multiple of M=3"));
    issue = ui::issueFromMessage(Severity::Error, file + QStringLiteral(": cannot open: not an HDF5 file"), {file}, fallback);
    QCOMPARE(issue.location, fallback);
    QCOMPARE(issue.summary(), file + QStringLiteral(": cannot open: not an HDF5 file"));
    // A where with more than an element path ("… row range") is left whole, at the fallback.
    issue = ui::issueFromMessage(Severity::Error, file + QStringLiteral(":/emb row range: must lie within"), {file}, fallback);
    QCOMPARE(issue.location, fallback);
    QCOMPARE(issue.text, file + QStringLiteral(":/emb row range: must lie within"));
    issue = ui::issueFromMessage(Severity::Error, QStringLiteral("--input emb: bound twice"), {file});
    QCOMPARE(issue.location, ui::ElementRef{});
    QCOMPARE(issue.text, QStringLiteral("--input emb: bound twice"));

    QCOMPARE(ui::splitWhere(QStringLiteral("C:/data/x.h5:/g/emb")),
             (ui::ElementRef{QStringLiteral("C:/data/x.h5"), QStringLiteral("/g/emb")}));
    core::Finding finding{core::Severity::Notice, "CSR I7", "/data/x.h5:/pixels", "indices were unsorted"};
    issue = ui::issueFromFinding(finding);
    QCOMPARE(issue.severity, Severity::Note);
    QCOMPARE(issue.location, (ui::ElementRef{QStringLiteral("/data/x.h5"), QStringLiteral("/pixels")}));
    QCOMPARE(issue.text, QStringLiteral("CSR I7: indices were unsorted"));
    finding.severity = core::Severity::Warning;
    QCOMPARE(ui::issueFromFinding(finding).severity, Severity::Warning);
}

void TestIssuesModel::failingLoadIsAnErrorAtTheFile()
{
    QTemporaryDir dir;
    const auto path = dir.filePath(QStringLiteral("broken.h5"));
    std::ofstream(path.toStdString()) << "garbage";
    ui::MainWindow window;
    QVERIFY(!window.openFile(path));
    const auto *issues = window.issuesModel();
    QCOMPARE(issues->rowCount(), 1);
    const auto &issue = issues->issue(0);
    QCOMPARE(issue.severity, Severity::Error);
    QCOMPARE(issue.location, (ui::ElementRef{QFileInfo(path).absoluteFilePath(), {}}));
    QCOMPARE(issues->index(0, ui::IssuesModel::LocationColumn).data().toString(), QStringLiteral("broken.h5"));
    QVERIFY2(issue.text.startsWith(QStringLiteral("cannot open")), qPrintable(issue.text));
    QCOMPARE(dockTitle(window), QStringLiteral("Issues (1 error)"));
    // Errors are also said in the status bar, with the file.
    QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("Error: ") + issue.summary()),
             qPrintable(window.statusBar()->currentMessage()));

    // The dock's Clear button empties it.
    window.findChild<QToolButton *>(QStringLiteral("issues.clear"))->click();
    QCOMPARE(issues->rowCount(), 0);
    QCOMPARE(dockTitle(window), QStringLiteral("Issues"));
}

void TestIssuesModel::exportNotesReachTheModel()
{
    // /labels holds int64: exporting it converts it to float64, which core notes (the CLI
    // prints "note: …/sample.h5:/labels: converted int64 to float64").
    QTemporaryDir dir;
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    core::SparsifierConfig config;
    config.threshold = 4.0;
    window.document()->changeSparsifier(config);
    window.document()->changeExportSettings({{QStringLiteral("/emb"), QStringLiteral("/labels")}, QStringLiteral("dense"), 0});
    const auto *issues = window.issuesModel();
    QCOMPARE(issues->rowCount(), 0);
    QVERIFY(exportAndWait(window, dir.filePath(QStringLiteral("out.h5"))));
    QVERIFY(QFileInfo::exists(dir.filePath(QStringLiteral("out.h5"))));
    QCOMPARE(issues->count(Severity::Error), 0);
    QCOMPARE(issues->rowCount(), 1);
    const auto &note = issues->issue(0);
    QCOMPARE(note.severity, Severity::Note);
    QCOMPARE(note.location, (ui::ElementRef{kSamplePath, QStringLiteral("/labels")}));
    QCOMPARE(note.text, QStringLiteral("converted int64 to float64"));
    QCOMPARE(issues->index(0, ui::IssuesModel::LocationColumn).data().toString(), QStringLiteral("sample.h5:/labels"));
    QCOMPARE(dockTitle(window), QStringLiteral("Issues (1 note)"));
    // A note is not an error: the status bar says the export went through.
    QVERIFY2(window.statusBar()->currentMessage().startsWith(QStringLiteral("Exported")),
             qPrintable(window.statusBar()->currentMessage()));
}

void TestIssuesModel::listingNotesReachTheModel()
{
    // A soft link to nothing is left out of the Files panel; core notes why.
    QTemporaryDir dir;
    const auto path = QFileInfo(dir.filePath(QStringLiteral("dangling.h5"))).absoluteFilePath();
    {
        auto file = core::H5File::create(path.toStdString());
        core::writeTensor(file, "/x", core::Tensor(core::Storage{core::DenseTensor<float>{{2, 2}, {1, 2, 3, 4}}}));
        QVERIFY(H5Lcreate_soft("/nowhere", file.id(), "dangling", H5P_DEFAULT, H5P_DEFAULT) >= 0);
    }
    ui::MainWindow window;
    QVERIFY(window.openFile(path));
    const auto *issues = window.issuesModel();
    QCOMPARE(issues->rowCount(), 1);
    QCOMPARE(issues->issue(0).severity, Severity::Note);
    QCOMPARE(issues->issue(0).location, (ui::ElementRef{path, QStringLiteral("/dangling")}));
    QVERIFY2(issues->issue(0).text.contains(QStringLiteral("dangling")), qPrintable(issues->issue(0).text));
}

void TestIssuesModel::gradcheckNotesReachTheModel()
{
    // /labels holds int64: the gradcheck reads it converting it (a note, as `sparsity
    // gradcheck` prints), then refuses it as no floating-point input. The note comes first,
    // as it happened; both are located at the element, the error's location taken out of
    // core's message.
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    ui::GradcheckPanelRequest request;
    request.expression = QStringLiteral("sum(square(labels))");
    request.inputs[QStringLiteral("labels")] = {kSamplePath, QStringLiteral("/labels")};
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    QVERIFY(window.documentJobs()->runGradcheck(request));
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().at(0).toBool(), false);
    const auto *issues = window.issuesModel();
    QCOMPARE(issues->rowCount(), 2);
    const ui::ElementRef labels{kSamplePath, QStringLiteral("/labels")};
    QCOMPARE(issues->issue(0).severity, Severity::Note);
    QCOMPARE(issues->issue(0).location, labels);
    QCOMPARE(issues->issue(0).text, QStringLiteral("converted int64 to float64"));
    QCOMPARE(issues->issue(1).severity, Severity::Error);
    QCOMPARE(issues->issue(1).location, labels);
    QVERIFY2(issues->issue(1).text.startsWith(QStringLiteral("Gradcheck: input 'labels' must be floating point")),
             qPrintable(issues->issue(1).text));
    QCOMPARE(dockTitle(window), QStringLiteral("Issues (1 error, 1 note)"));
}

void TestIssuesModel::activatingAnIssueShowsItsElement()
{
    ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/labels"))); // int64: noted as converted
    QVERIFY(window.selectElement(QStringLiteral("/W")));
    const auto *issues = window.issuesModel();
    QCOMPARE(issues->rowCount(), 1);
    QCOMPARE(issues->issue(0).location, (ui::ElementRef{kSamplePath, QStringLiteral("/labels")}));

    auto *view = window.findChild<ui::IssuesPanel *>()->view();
    QVERIFY(view->isVisible());
    QVERIFY(!view->rootIsDecorated());
    const auto row = view->model()->index(0, ui::IssuesModel::MessageColumn);
    doubleClick(view, row);
    QCOMPARE(window.document()->source().elementPath, QStringLiteral("/labels"));
    QCOMPARE(window.document()->source().filePath, kSamplePath);
    auto *tree = qobject_cast<QTreeView *>(window.findChild<QDockWidget *>(QStringLiteral("FilesDock"))->widget());
    QCOMPARE(QString::fromStdString(window.browserModel()->element(tree->currentIndex())->path), QStringLiteral("/labels"));

    // Enter on it does the same.
    QVERIFY(window.selectElement(QStringLiteral("/W")));
    view->setFocus();
    view->setCurrentIndex(row);
    QTest::keyClick(view, Qt::Key_Return);
    QCOMPARE(window.document()->source().elementPath, QStringLiteral("/labels"));
    QCOMPARE(issues->rowCount(), 1); // previewing /labels again notes nothing new

    // An issue at a file that is not open says so and changes nothing.
    QVERIFY(!window.openFile(QStringLiteral("/nonexistent/a.h5")));
    QCOMPARE(issues->rowCount(), 2);
    doubleClick(view, view->model()->index(1, ui::IssuesModel::MessageColumn));
    QCOMPARE(window.document()->source().elementPath, QStringLiteral("/labels"));
    QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("a.h5 is not open")),
             qPrintable(window.statusBar()->currentMessage()));
}

QTEST_MAIN(TestIssuesModel)
#include "tst_issues_model.moc"
