// WORKSPACE.json: what is saved reopens to the same files, tensor, recipe and export
// settings; relative paths are read from the workspace's folder; a broken workspace names
// the file and the JSON path in the Issues dock and changes nothing.
#include "core/io/h5_writer.h"
#include "ui/document/tensor_document.h"
#include "ui/mainwindow/main_window.h"
#include "ui/models/h5_browser_model.h"
#include "ui/models/issues_model.h"
#include "ui/panels/gradcheck_panel.h"
#include "ui/panels/optimizer_panel.h"
#include "ui/workspace/workspace.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QFile>
#include <QListWidget>
#include <QMimeData>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <optional>

namespace core = sparsity::core;
namespace ui = sparsity::ui;

class TestWorkspace : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests")); }
    void savedWorkspaceReopens();
    void relativePathsStartAtTheWorkspace();
    void aDroppedWorkspaceOpensAsOne();
    void sliceAndSelectionOfAnNdTensorReopen();
    void brokenWorkspaceChangesNothing_data();
    void brokenWorkspaceChangesNothing();
    void unwritableWorkspaceIsReported();
    void saveStartsWhereAWorkspaceWasSaved();
};

namespace {

const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

void write(const QString &path, const QByteArray &text)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

} // namespace

void TestWorkspace::savedWorkspaceReopens()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("workspace.json"));
    core::SparsifierConfig config;
    config.method = core::SparsifierMethod::DataNorm;
    config.sparsityLevel = 0.25;
    config.blockRows = 2;
    config.blockCols = 2;
    config.zerosPerBlock = 3;
    config.norm = core::BlockNorm::L2;
    const ui::ExportSettings settings{{QStringLiteral("/emb")}, QStringLiteral("csr"), 3};
    {
        ui::MainWindow window;
        QVERIFY(window.openFile(kSample));
        QVERIFY(window.selectElement(QStringLiteral("/emb")));
        window.document()->changeOwnSparsifier(true);
        core::SparsifierConfig own;
        own.threshold = 2.5;
        window.document()->changeSparsifier(own);
        QVERIFY(window.selectElement(QStringLiteral("/W")));
        window.document()->changeSparsifier(config);
        window.document()->changeExportSettings(settings);
        ui::OptimizerRequest optimizer;
        optimizer.kind = core::OptimizerKind::Sgd;
        optimizer.rule = core::Rule::Mxnet;
        optimizer.hyperparameters.lr = 0.25;
        optimizer.hyperparameters.momentum = 0.5;
        optimizer.hyperparameters.beta1 = 0.8; // typed for adam, kept while sgd is chosen
        optimizer.hyperparameters.eps = 1e-9;
        optimizer.semantics = {core::Semantics::Lazy, core::Semantics::Masked};
        optimizer.gradients = {QStringLiteral("/g1")};
        optimizer.mask = QStringLiteral("/ink");
        window.optimizerPanel()->setRequest(optimizer);
        window.document()->setSelection(ui::ElementSelection::rectangle(1, 3, 2, 4));
        ui::GradcheckPanelRequest gradcheck;
        gradcheck.expression = QStringLiteral("softmax(mm(emb, W), 1)");
        gradcheck.inputs[QStringLiteral("emb")] = {QFileInfo(kSample).absoluteFilePath(), QStringLiteral("/ink")};
        gradcheck.options.masked = true;
        gradcheck.options.eps = 1e-5;
        window.gradcheckPanel()->setRequest(gradcheck);
        QVERIFY(window.saveWorkspaceTo(path));
    }
    ui::MainWindow window;
    QVERIFY(window.openWorkspace(path));
    QCOMPARE(window.issuesModel()->rowCount(), 0);
    // Opened, not edited: nothing unsaved, and no Undo that would take its recipes back.
    QVERIFY(!window.isWindowModified());
    QVERIFY(!window.document()->undoStack()->canUndo());
    QCOMPARE(window.browserModel()->fileCount(), 1);
    QCOMPARE(window.document()->source().filePath, QFileInfo(kSample).absoluteFilePath());
    QCOMPARE(window.document()->source().elementPath, QStringLiteral("/W"));
    const auto &reopened = window.document()->sparsifier();
    QVERIFY(reopened.has_value());
    QVERIFY(reopened->method == core::SparsifierMethod::DataNorm);
    QCOMPARE(reopened->sparsityLevel, 0.25);
    QCOMPARE(reopened->blockRows, std::int64_t{2});
    QCOMPARE(reopened->zerosPerBlock.value(), std::int64_t{3});
    QVERIFY(reopened->norm == core::BlockNorm::L2);
    QVERIFY(!window.document()->hasOwnSparsifier());
    const auto &own = window.document()->datasetSparsifiers();
    QCOMPARE(own.size(), std::size_t{1});
    QVERIFY(own.at(QStringLiteral("/emb")).method == core::SparsifierMethod::Threshold);
    QCOMPARE(own.at(QStringLiteral("/emb")).threshold, 2.5);
    QVERIFY(window.document()->exportSettings() == settings);
    QVERIFY(window.document()->hasPreview());                  // the recipe previews on the reopened tensor
    const auto optimizer = window.optimizerPanel()->choices(); // /W is shown: /g1 and /ink do not fit it
    QVERIFY(window.optimizerPanel()->request().gradients.isEmpty());
    QVERIFY(optimizer.kind == core::OptimizerKind::Sgd);
    QVERIFY(optimizer.rule == core::Rule::Mxnet);
    QCOMPARE(optimizer.hyperparameters.lr.value(), 0.25);
    QCOMPARE(optimizer.hyperparameters.momentum.value(), 0.5);
    QCOMPARE(optimizer.hyperparameters.beta1, std::optional<double>(0.8));
    QVERIFY(!optimizer.hyperparameters.beta2); // empty: the rule's default
    QCOMPARE(optimizer.hyperparameters.eps, std::optional<double>(1e-9));
    QVERIFY(optimizer.semantics == (std::vector<core::Semantics>{core::Semantics::Lazy, core::Semantics::Masked}));
    QCOMPARE(optimizer.gradients, QStringList{QStringLiteral("/g1")});
    QCOMPARE(optimizer.mask, QStringLiteral("/ink"));
    QCOMPARE(window.document()->selection(), ui::ElementSelection::rectangle(1, 3, 2, 4));
    QCOMPARE(window.document()->selectedCount(), 9);
    const auto gradcheck = window.gradcheckPanel()->request();
    QCOMPARE(gradcheck.expression, QStringLiteral("softmax(mm(emb, W), 1)"));
    QCOMPARE(gradcheck.inputs.value(QStringLiteral("emb")).path, QStringLiteral("/ink")); // as chosen, not by name
    QCOMPARE(gradcheck.inputs.value(QStringLiteral("W")).path, QStringLiteral("/W"));
    QVERIFY(gradcheck.options.masked && !gradcheck.options.fast);
    QCOMPARE(gradcheck.options.eps, 1e-5);
}

void TestWorkspace::sliceAndSelectionOfAnNdTensorReopen()
{
    QTemporaryDir dir;
    const QString cube = dir.filePath(QStringLiteral("cube.h5"));
    {
        core::DenseTensor<float> t{{3, 4, 5}, {}};
        for (int i = 0; i < 60; ++i)
            t.values.push_back(static_cast<float>(i));
        auto file = core::H5File::create(cube.toStdString());
        core::writeTensor(file, "/cube", core::Tensor(core::Storage{t}));
    }
    const QString path = dir.filePath(QStringLiteral("ws.json"));
    write(path, R"({"version": 1, "files": ["cube.h5"],
                    "current": {"file": "cube.h5", "element": "/cube", "slice": [2], "selection": {"elements": [41, 43]}}})");
    ui::MainWindow window;
    QVERIFY(window.openWorkspace(path));
    QCOMPARE(window.document()->slice(), std::vector<std::int64_t>{2});
    QCOMPARE(window.document()->selectedCount(), 3);
    QCOMPARE(window.document()->selected()[42], std::uint8_t{1});
    // Saved again, it reads back the same.
    QVERIFY(window.saveWorkspaceTo(path));
    const auto again = ui::loadWorkspace(path);
    QCOMPARE(again.slice, std::vector<std::int64_t>{2});
    QCOMPARE(again.selection, ui::ElementSelection::flatRange(41, 43));
}

void TestWorkspace::relativePathsStartAtTheWorkspace()
{
    QTemporaryDir dir;
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("data"))));
    QVERIFY(QFile::copy(kSample, dir.filePath(QStringLiteral("data/copy.h5"))));
    const QString path = dir.filePath(QStringLiteral("ws.json"));
    write(path, R"({"version": 1, "files": ["data/copy.h5"], "current": {"file": "data/copy.h5", "element": "/emb"},
                    "sparsifier": {"method": "n-m", "n": 1, "m": 4}})");
    ui::MainWindow window;
    QVERIFY(window.openWorkspace(path));
    QCOMPARE(window.document()->source().filePath, dir.filePath(QStringLiteral("data/copy.h5")));
    QCOMPARE(window.document()->prunedFraction(), 0.75);
}

void TestWorkspace::aDroppedWorkspaceOpensAsOne()
{
    // Dropped on the window, a workspace opens as on the command line (it was read as an HDF5
    // file and refused), an HDF5 file opens, and a web link is not taken. They open once the
    // drop is over, not inside its handler (a workspace may ask, in a modal dialog, whether to
    // drop the work open; inside the handler that holds the application dragged from).
    QTemporaryDir dir;
    QVERIFY(QFile::copy(kSample, dir.filePath(QStringLiteral("copy.h5"))));
    const QString path = dir.filePath(QStringLiteral("ws.json"));
    write(path, R"({"version": 1, "files": ["copy.h5"], "current": {"file": "copy.h5", "element": "/pixels"}})");
    ui::MainWindow window;
    const auto drop = [&](const QList<QUrl> &urls) {
        QMimeData data;
        data.setUrls(urls);
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &enter);
        if (!enter.isAccepted())
            return false;
        QDropEvent dropped(QPointF(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        const auto filesBefore = window.browserModel()->fileCount();
        QCoreApplication::sendEvent(&window, &dropped);
        return dropped.isAccepted() && window.browserModel()->fileCount() == filesBefore; // nothing opened yet
    };
    QVERIFY(!drop({QUrl(QStringLiteral("https://example.org/table.h5"))}));
    QVERIFY(drop({QUrl::fromLocalFile(path)}));
    QTRY_COMPARE(window.document()->source().filePath, dir.filePath(QStringLiteral("copy.h5")));
    QCOMPARE(window.document()->source().elementPath, QStringLiteral("/pixels"));
    QCOMPARE(window.issuesModel()->count(ui::Issue::Severity::Error), 0);
    QVERIFY(drop({QUrl::fromLocalFile(kSample)}));
    QTRY_COMPARE(window.browserModel()->fileCount(), 2);
}

void TestWorkspace::brokenWorkspaceChangesNothing_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("not JSON") << QByteArray("{\"version\": 1,") << QStringLiteral("ws.json: not a JSON file");
    QTest::newRow("unknown key") << QByteArray(R"({"version": 1, "colour": "red"})")
                                 << QStringLiteral("ws.json: $.colour is not a known key");
    QTest::newRow("wrong type") << QByteArray(R"({"version": 1, "sparsifier": {"method": "n-m", "n": "two"}})")
                                << QStringLiteral("ws.json: $.sparsifier.n must be an integer, but got a string");
    QTest::newRow("invalid recipe") << QByteArray(R"({"version": 1, "sparsifier": {"method": "n-m", "n": 5, "m": 4}})")
                                    << QStringLiteral("ws.json: $.sparsifier: n must be at most m (4), but got 5");
    QTest::newRow("relative dataset") << QByteArray(R"({"version": 1, "dataset_sparsifiers": {"emb": {"method": "n-m"}}})")
                                      << QStringLiteral(
                                             "ws.json: $.dataset_sparsifiers[\"emb\"] must name a dataset by its absolute path");
    QTest::newRow("bad slice") << QByteArray(R"({"version": 1, "current": {"file": "a.h5", "element": "/x", "slice": [-1]}})")
                               << QStringLiteral("ws.json: $.current.slice must be an array of indices >= 0, but got [-1]");
    QTest::newRow("bad selection")
        << QByteArray(R"({"version": 1, "current": {"file": "a.h5", "element": "/x", "selection": {"rectangle": [1, 2]}}})")
        << QStringLiteral("ws.json: $.current.selection.rectangle must be an array of 4 numbers, but got [1,2]");
    QTest::newRow("gradcheck eps") << QByteArray(R"({"version": 1, "gradcheck": {"expression": "x", "eps": 0}})")
                                   << QStringLiteral("ws.json: $.gradcheck.eps must be a number > 0, but got 0");
    QTest::newRow("wrong version") << QByteArray(R"({"version": 2})")
                                   << QStringLiteral("ws.json: $.version must be 1, but got 2");
    QTest::newRow("unknown optimizer") << QByteArray(R"({"version": 1, "optimizer": {"optimizer": "lion", "rule": "torch"}})")
                                       << QStringLiteral("ws.json: $.optimizer.optimizer: ");
    QTest::newRow("bad layout") << QByteArray(R"({"version": 1, "export": {"layout": "bsr"}})")
                                << QStringLiteral("ws.json: $.export.layout must be dense, masked, coo, csr, csc or row_sparse");
}

void TestWorkspace::brokenWorkspaceChangesNothing()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("ws.json"));
    write(path, text);
    ui::MainWindow window;
    QVERIFY(!window.openWorkspace(path));
    QCOMPARE(window.issuesModel()->rowCount(), 1);
    QVERIFY2(window.issuesModel()->issue(0).summary().contains(message), qPrintable(window.issuesModel()->issue(0).summary()));
    QCOMPARE(window.browserModel()->fileCount(), 0);
    QVERIFY(!window.document()->sparsifier());
    QCOMPARE(window.document()->undoStack()->count(), 0);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), text); // never modified
}

void TestWorkspace::unwritableWorkspaceIsReported()
{
    ui::MainWindow window;
    QVERIFY(!window.saveWorkspaceTo(QStringLiteral("/nonexistent-folder/ws.json")));
    QVERIFY(window.issuesModel()->issue(0).summary().contains(
        QStringLiteral("/nonexistent-folder/ws.json: cannot write the workspace")));
}

// Save Workspace starts at the workspace this window saved, and a new window in the folder a
// workspace was last saved to (it started in the data's folder: the bundled sample's is the
// install's, which a user cannot write).
void TestWorkspace::saveStartsWhereAWorkspaceWasSaved()
{
    QSettings().remove(QStringLiteral("workspace/lastFolder"));
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("mine")));
    const auto saved = dir.filePath(QStringLiteral("mine/session.json"));
    {
        ui::MainWindow window;
        QVERIFY(window.openFile(kSample));
        QCOMPARE(window.workspaceSaveTarget(), QDir(window.dialogFolder()).filePath(QStringLiteral("workspace.json")));
        QVERIFY(window.saveWorkspaceTo(saved));
        QCOMPARE(window.workspaceSaveTarget(), saved);
    }
    ui::MainWindow next;
    QVERIFY(next.openFile(kSample));
    QCOMPARE(next.workspaceSaveTarget(), dir.filePath(QStringLiteral("mine/workspace.json")));
    QSettings().remove(QStringLiteral("workspace/lastFolder"));
}

QTEST_MAIN(TestWorkspace)
#include "tst_workspace.moc"
