// The Files tree's context menu: Preview, Copy Path, Close File and Show Attributes exist as
// actions of the tree and act on its current row.
#include "ui/document/tensor_document.h"
#include "ui/mainwindow/main_window.h"
#include "ui/models/attribute_table_model.h"
#include "ui/models/h5_browser_model.h"
#include "ui/panels/attributes_panel.h"

#include <QAction>
#include <QClipboard>
#include <QDockWidget>
#include <QFileInfo>
#include <QGuiApplication>
#include <QTest>
#include <QTreeView>

namespace ui = sparsity::ui;

class TestFilesTreeActions : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests-tree-actions")); }
    void menuHoldsTheFourActions();
    void copyPathCopiesFileColonElement();
    void previewOfAFileShowsItsFirstTensor();
    void showAttributesRaisesTheDock();
    void closeFileClosesTheRowsFile();
};

namespace {

const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

QAction *action(const ui::MainWindow &window, const char *name)
{
    return window.findChild<QTreeView *>()->findChild<QAction *>(QString::fromLatin1(name));
}

} // namespace

void TestFilesTreeActions::menuHoldsTheFourActions()
{
    ui::MainWindow window;
    auto *tree = window.findChild<QTreeView *>();
    QCOMPARE(tree->contextMenuPolicy(), Qt::CustomContextMenu);
    for (const char *name : {"action.files.preview", "action.files.copy_path", "action.files.close", "action.files.attributes"}) {
        QVERIFY2(action(window, name), name);
        QVERIFY2(!action(window, name)->isEnabled(), name); // nothing to act on yet
    }
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    for (const char *name : {"action.files.preview", "action.files.copy_path", "action.files.close", "action.files.attributes"})
        QVERIFY2(action(window, name)->isEnabled(), name);
}

void TestFilesTreeActions::copyPathCopiesFileColonElement()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    const QString file = QFileInfo(kSample).absoluteFilePath();
    QVERIFY(window.selectElement(QStringLiteral("/W")));
    action(window, "action.files.copy_path")->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(), file + QStringLiteral(":/W"));
    // On a file's row: the file alone.
    window.findChild<QTreeView *>()->setCurrentIndex(window.browserModel()->index(0, 0));
    action(window, "action.files.copy_path")->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(), file);
}

void TestFilesTreeActions::previewOfAFileShowsItsFirstTensor()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    auto *model = window.browserModel();
    const auto fileRow = model->index(0, 0);
    auto *tree = window.findChild<QTreeView *>();
    tree->setCurrentIndex(fileRow);
    QVERIFY(!window.document()->hasTensor()); // a file's row previews nothing by itself
    action(window, "action.files.preview")->trigger();
    const QString first = model->objectPath(model->index(0, 0, fileRow));
    QCOMPARE(window.document()->source().elementPath, first);
    QCOMPARE(tree->currentIndex().siblingAtColumn(0), model->index(0, 0, fileRow));
    QVERIFY(window.document()->hasTensor());
}

void TestFilesTreeActions::showAttributesRaisesTheDock()
{
    ui::MainWindow window;
    window.resize(1280, 690);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    auto *dock = window.findChild<QDockWidget *>(QStringLiteral("AttributesDock"));
    window.findChild<QDockWidget *>(QStringLiteral("InspectorDock"))->raise();
    QCoreApplication::processEvents();
    QVERIFY(dock->visibleRegion().isEmpty()); // behind the Inspector's tab
    action(window, "action.files.attributes")->trigger();
    QCoreApplication::processEvents();
    QVERIFY(!dock->visibleRegion().isEmpty());
    QVERIFY(window.attributesPanel()->objectText().startsWith(QStringLiteral("sample.h5:/emb")));
}

void TestFilesTreeActions::closeFileClosesTheRowsFile()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    QCOMPARE(window.browserModel()->fileCount(), 1);
    QVERIFY(window.attributesPanel()->model()->rowCount() > 0);
    action(window, "action.files.close")->trigger();
    QCOMPARE(window.browserModel()->fileCount(), 0);
    QVERIFY(!window.document()->hasTensor());
    QCOMPARE(window.attributesPanel()->model()->rowCount(), 0); // not the closed file's any more
    for (const char *name : {"action.files.preview", "action.files.copy_path", "action.files.close", "action.files.attributes"})
        QVERIFY2(!action(window, name)->isEnabled(), name);
}

QTEST_MAIN(TestFilesTreeActions)
#include "tst_files_tree_actions.moc"
