// The main window on the sample: open, select, preview; errors go to the Issues dock.
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/sparsify/data_sparsifier.h"
#include "ui/document/file_labels.h"
#include "ui/document/tensor_document.h"
#include "ui/document/tensor_loader.h"
#include "ui/jobs/overview_builder.h"
#include "ui/mainwindow/main_window.h"
#include "ui/models/h5_browser_model.h"
#include "ui/models/issues_model.h"
#include "ui/panels/issues_panel.h"
#include "ui/panels/sparsifier_panel.h"
#include "ui/views/histogram_view.h"
#include "ui/views/overview_strip.h"
#include "ui/views/tensor_preview.h"

#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <QUndoStack>
#include <fstream>

using sparsity::ui::H5BrowserModel;
using sparsity::ui::MainWindow;

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests")); }
    void opensSampleAndLoadsItWhole();
    void tallTensorLoadsFirstRows();
    void previewsMaskedAndSparse();
    void badFileGoesToIssues();
    void heatmapKeysRespectFocus();
    void applyShortcutWorksFromEveryPanel();
    void windowKeysWinInTheSparsifierFields();
    void reopeningAFileKeepsTheTreeAndTheView();
    void titlesFollowTheFileLabel();
    void filesColumnsFitTheDock();
    void clickOutlinesWithoutWashing();
};

static const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

void TestMainWindow::opensSampleAndLoadsItWhole()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    QCOMPARE(window.preview()->image().size(), QSize(64, 1797));
    QCOMPARE(window.issuesModel()->rowCount(), 0);
    QVERIFY(!window.grab().isNull());
}

void TestMainWindow::tallTensorLoadsFirstRows()
{
    // 70,000 x 64 is over the 4 Mi elements loaded whole: the first 65,536 rows are read by
    // hyperslab and the title says so.
    QTemporaryDir dir;
    const auto path = dir.filePath(QStringLiteral("tall.h5")).toStdString();
    {
        sparsity::core::DenseTensor<float> t{{70000, 64}, {}};
        for (int row = 0; row < 70000; ++row)
            t.values.insert(t.values.end(), 64, static_cast<float>(row)); // each row holds its index
        auto file = sparsity::core::H5File::create(path);
        sparsity::core::writeTensor(file, "/tall", sparsity::core::Tensor(sparsity::core::Storage{t}));
    }
    MainWindow window;
    QVERIFY(window.openFile(QString::fromStdString(path)));
    QVERIFY(window.selectElement(QStringLiteral("/tall")));
    QCOMPARE(window.preview()->image().size(), QSize(64, 65536));
    // The row scroll bar walks the rest of the table, one window at a time.
    auto *rows = window.rowScrollBar();
    QVERIFY(!rows->isHidden());
    QCOMPARE(rows->maximum(), 70000 - 65536);
    // A move of the window is read on a pool thread: the window shows the old rows until the
    // new ones come.
    QSignalSpy moved(window.loader(), &sparsity::ui::TensorLoader::loaded);
    rows->setValue(4000);
    QVERIFY(window.loader()->isLoading());
    QVERIFY(moved.wait(10000));
    QCOMPARE(moved.count(), 1);
    QVERIFY(!window.loader()->isLoading());
    QCOMPARE(window.document()->source().firstRow, std::int64_t{4000});
    QCOMPARE(window.document()->values().shape.at(0), std::int64_t{65536});
    QCOMPARE(window.document()->values().values.at(0), 4000.0);
    // Opening the file again (it may have changed) keeps the rows shown: the window went back
    // to the table's first row.
    QVERIFY(window.openFile(QString::fromStdString(path)));
    QCOMPARE(window.document()->source().firstRow, std::int64_t{4000});
    QCOMPARE(window.document()->values().values.at(0), 4000.0);
    QCOMPARE(rows->value(), 4000);
    // Zoomed in, the title names the part shown in the table's rows, as the axis does.
    window.preview()->zoomBy(4.0);
    QVERIFY2(window.preview()->titleText().contains(QStringLiteral("— rows 28")), qPrintable(window.preview()->titleText()));
    window.preview()->zoomBy(0.25);
    QVERIFY2(!window.preview()->titleText().contains(QStringLiteral("— rows")), qPrintable(window.preview()->titleText()));
    // Statistics of the loaded rows say which rows they cover.
    window.document()->changeThreshold(100.0);
    QVERIFY2(window.histogram()->titleText().contains(QStringLiteral("(rows 4000–69535 of 70000)")),
             qPrintable(window.histogram()->titleText()));
    // The Sparsifier's status says the preview covers the loaded rows. A recipe that ranks the
    // whole tensor previews them with the whole table's choice, computed in the background: the
    // preview is then what Export writes in those rows. Every row holds its index, so data-norm
    // at level 0.5 sparsifies rows 0–34999 of the table, where the loaded rows alone would have
    // it sparsify rows 4000–36767.
    auto *status = window.sparsifierPanel()->findChild<QLabel *>(QStringLiteral("sparsifier.status"));
    QVERIFY2(status->text().endsWith(QStringLiteral("pruned of the loaded rows 4000–69535 of 70000")),
             qPrintable(status->text()));
    sparsity::core::SparsifierConfig dataNorm;
    dataNorm.method = sparsity::core::SparsifierMethod::DataNorm;
    dataNorm.sparsityLevel = 0.5;
    window.document()->changeSparsifier(dataNorm);
    QVERIFY2(status->text().contains(QStringLiteral("(ranking the whole table…)")), qPrintable(status->text()));
    QTRY_VERIFY_WITH_TIMEOUT(window.document()->previewScopeNote().isEmpty(), 30000);
    QVERIFY2(status->text().endsWith(QStringLiteral("pruned of the loaded rows 4000–69535 of 70000")),
             qPrintable(status->text()));
    const auto table = sparsity::core::readTensor(sparsity::core::H5File::openRead(path), "/tall");
    for (const double level : {0.5, 0.2}) { // another level is chosen again from the same scores
        dataNorm.sparsityLevel = level;
        window.document()->changeSparsifier(dataNorm);
        QTRY_VERIFY_WITH_TIMEOUT(window.document()->previewScopeNote().isEmpty(), 30000);
        const auto whole = sparsity::core::computeMask(table, dataNorm);
        const auto &pruned = window.document()->pruned();
        QCOMPARE(pruned.size(), std::size_t{65536 * 64});
        for (std::size_t k = 0; k < pruned.size(); ++k)
            if (pruned[k] != !whole[4000 * 64 + k])
                QFAIL(qPrintable(QStringLiteral("level %1: element %2 of the window").arg(level).arg(k)));
    }
    // Applied edits change the loaded rows, not the file's: the preview ranks them alone then,
    // and says so; undone, it takes the whole table's choice again.
    QVERIFY(window.document()->applySparsifier());
    QVERIFY2(status->text().endsWith(QStringLiteral("(the loaded rows have applied edits; data-norm ranked within these rows, "
                                                    "so Export's mask here can differ)")),
             qPrintable(status->text()));
    window.document()->undoStack()->undo();
    QTRY_VERIFY_WITH_TIMEOUT(window.document()->previewScopeNote().isEmpty(), 30000);
    window.document()->changeThreshold(std::nullopt);

    // The overview strip shows the whole table, built in the background; each of its 2000
    // bins of 35 rows keeps the strongest value, the last row index of the bin.
    window.resize(1200, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *builder = window.overviewBuilder();
    QSignalSpy built(builder, &sparsity::ui::OverviewBuilder::finished);
    QVERIFY(builder->overview().complete() || built.wait(30000));
    const auto &overview = builder->overview();
    QCOMPARE(overview.totalRows(), std::int64_t{70000});
    QCOMPARE(overview.bins(), std::int64_t{2000});
    for (std::int64_t bin = 0; bin < 2000; ++bin)
        QCOMPARE(overview.values().values[static_cast<std::size_t>(bin * 64 + 63)],
                 static_cast<double>(std::min<std::int64_t>(bin * 35 + 34, 69999)));
    auto *strip = window.overviewStrip();
    QVERIFY(strip->isVisible());
    QVERIFY(!strip->image().isNull());
    // A click near the bottom moves the window to the end of the table.
    QTest::mouseClick(strip, Qt::LeftButton, {}, QPoint(strip->width() / 2, strip->height() - 3));
    QTRY_COMPARE_WITH_TIMEOUT(window.document()->source().firstRow, std::int64_t{70000 - 65536}, 10000);
    QCOMPARE(rows->value(), 70000 - 65536);
    // A tensor that loads whole has no strip.
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    QVERIFY(strip->isHidden());
    QVERIFY(!builder->isBuilding());
    // Back on the table, the strip is back, drawn from the overview already built.
    QVERIFY(window.selectElement(QStringLiteral("/tall"), QString::fromStdString(path)));
    QVERIFY(strip->isVisible());
    QVERIFY(!builder->isBuilding());
    QVERIFY(!strip->image().isNull());
    QCOMPARE(window.issuesModel()->rowCount(), 0);
}

void TestMainWindow::previewsMaskedAndSparse()
{
    MainWindow window;
    QVERIFY(window.openFile(kSample));
    for (const char *path : {"/pixels", "/g0", "/g1", "/ink", "/labels", "/W"}) {
        QVERIFY(window.selectElement(QString::fromLatin1(path)));
        QVERIFY2(!window.preview()->image().isNull(), path);
    }
    QCOMPARE(window.preview()->image().size(), QSize(10, 64));
    // Every one previews without an error; /labels holds int64, which core notes converting.
    const auto *issues = window.issuesModel();
    QCOMPARE(issues->count(sparsity::ui::Issue::Severity::Error), 0);
    QCOMPARE(issues->rowCount(), 1);
    QVERIFY2(issues->issue(0).summary().endsWith(QStringLiteral("sample.h5:/labels: converted int64 to float64")),
             qPrintable(issues->issue(0).summary()));
}

void TestMainWindow::badFileGoesToIssues()
{
    QTemporaryDir dir;
    const auto path = dir.filePath(QStringLiteral("broken.h5"));
    std::ofstream(path.toStdString()) << "garbage";
    MainWindow window;
    QVERIFY(!window.openFile(path));
    QCOMPARE(window.issuesModel()->rowCount(), 1);
    QVERIFY(window.issuesModel()->issue(0).summary().contains(QStringLiteral("broken.h5: cannot open: not an HDF5 file")));
    QCOMPARE(window.browserModel()->rowCount(), 0);
}

void TestMainWindow::heatmapKeysRespectFocus()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    window.document()->changeThreshold(0.5);
    const QRectF all = window.preview()->view();
    // Focus on a button of the Sparsifier panel, not on the heatmap: + still zooms it, Home
    // shows it all again.
    auto *apply = window.sparsifierPanel()->findChild<QPushButton *>(QStringLiteral("sparsifier.apply"));
    apply->setFocus();
    QCOMPARE(QApplication::focusWidget(), apply);
    QTest::keyClick(apply, Qt::Key_Plus);
    QVERIFY(window.preview()->view().width() < all.width());
    QTest::keyClick(apply, Qt::Key_Home);
    QCOMPARE(window.preview()->view(), all);
    // In the Files tree Home is the tree's (its first row), not the heatmap's.
    QTest::keyClick(apply, Qt::Key_Plus);
    const QRectF zoomed = window.preview()->view();
    auto *tree = window.findChild<QTreeView *>();
    tree->setFocus();
    QTest::keyClick(tree, Qt::Key_Home);
    QCOMPARE(window.preview()->view(), zoomed);
    QCOMPARE(tree->currentIndex(), window.browserModel()->index(0, 0));
    // Focus on the Method box: Home changes neither the method nor the view.
    auto *method = window.sparsifierPanel()->findChild<QComboBox *>(QStringLiteral("sparsifier.method"));
    method->setFocus();
    const QString before = method->currentText();
    QTest::keyClick(method, Qt::Key_Home);
    QCOMPARE(method->currentText(), before);
    QVERIFY(window.document()->threshold().has_value());
    QCOMPARE(window.preview()->view(), zoomed);
    // Esc in the Method box is the box's, not Select None: the selection stays.
    QVERIFY(window.selectElement(QStringLiteral("/emb"))); // Home in the tree showed the file row
    method->setFocus();
    window.document()->setSelection(sparsity::ui::ElementSelection::rectangle(0, 3, 0, 3));
    QCOMPARE(window.document()->selectedCount(), std::int64_t{16});
    QTest::keyClick(method, Qt::Key_Escape);
    QCOMPARE(window.document()->selectedCount(), std::int64_t{16});
    // Elsewhere Esc selects nothing.
    apply->setFocus();
    QTest::keyClick(apply, Qt::Key_Escape);
    QCOMPARE(window.document()->selectedCount(), std::int64_t{0});
}

void TestMainWindow::applyShortcutWorksFromEveryPanel()
{
    // Ctrl+Return applies the recipe wherever the focus is: the Issues table used to take it
    // for its own Enter.
    MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/labels"))); // an issue: int64 converted
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    auto *issues = window.findChild<sparsity::ui::IssuesPanel *>()->view();
    auto *tree = window.findChild<QTreeView *>();
    for (QWidget *focus : std::initializer_list<QWidget *>{issues, tree, window.preview()}) {
        window.document()->changeThreshold(0.5);
        const int before = window.document()->undoStack()->index();
        focus->setFocus();
        QCOMPARE(QApplication::focusWidget(), focus);
        QTest::keyClick(focus, Qt::Key_Return, Qt::ControlModifier);
        QVERIFY2(window.document()->undoStack()->index() == before + 1, qPrintable(focus->objectName()));
        QCOMPARE(window.document()->source().elementPath, QStringLiteral("/emb")); // not the issue's /labels
        window.document()->changeThreshold(0.25);
        QTest::keyClick(focus, Qt::Key_Enter, Qt::ControlModifier | Qt::KeypadModifier); // the keypad's Enter
        QCOMPARE(window.document()->undoStack()->index(), before + 3);
    }
}

void TestMainWindow::windowKeysWinInTheSparsifierFields()
{
    // Ctrl+Z in the threshold box after Apply undoes Apply: the box's own text undo typed the
    // value before back (0) as a new edit and left the pruned values in place. Ctrl+E exports
    // from it (the box took it as "end of line").
    MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    auto *stack = window.document()->undoStack();
    window.document()->changeThreshold(0.25);
    auto *threshold = window.findChild<QDoubleSpinBox *>(QStringLiteral("sparsifier.threshold"));
    QVERIFY(threshold);
    threshold->setFocus();
    QCOMPARE(QApplication::focusWidget(), threshold);
    // Typed as a user types it, so the box's own history holds the older texts.
    QTest::keyClick(threshold, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(threshold, QStringLiteral("0.5"));
    QCOMPARE(threshold->value(), 0.5);
    QTest::keyClick(threshold, Qt::Key_Return, Qt::ControlModifier);
    const int applied = stack->index();
    const int commands = stack->count();
    QVERIFY(window.document()->hasEdits());

    // The toolbar's Undo keeps its name; the command is in its tooltip.
    auto *toolbarUndo = window.findChild<QAction *>(QStringLiteral("action.edit.undo.toolbar"));
    QVERIFY(toolbarUndo && toolbarUndo->isEnabled());
    QCOMPARE(toolbarUndo->text(), QStringLiteral("Undo"));
    QVERIFY2(toolbarUndo->toolTip().startsWith(QStringLiteral("Undo Apply")), qPrintable(toolbarUndo->toolTip()));

    QTest::keyClick(threshold, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(stack->index(), applied - 1);
    QCOMPARE(stack->count(), commands); // no edit pushed
    QVERIFY(!window.document()->hasEdits());
    QVERIFY(window.findChild<QAction *>(QStringLiteral("action.edit.redo.toolbar"))->isEnabled());
    QTest::keyClick(threshold, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(stack->index(), applied); // Ctrl+Shift+Z, not only the first binding (Ctrl+Y)
    QVERIFY(window.document()->hasEdits());
    QCOMPARE(threshold->value(), 0.5);

    bool exportOpened = false;
    QTimer::singleShot(0, &window, [&] {
        if (auto *dialog = QApplication::activeModalWidget()) {
            exportOpened = true;
            dialog->close();
        }
    });
    QTest::keyClick(threshold, Qt::Key_E, Qt::ControlModifier);
    QVERIFY(exportOpened);
    QCOMPARE(threshold->value(), 0.5);

    // The same in a floating Sparsifier dock, a window of its own.
    auto *sparsifierDock = window.findChild<QDockWidget *>(QStringLiteral("SparsifierDock"));
    sparsifierDock->setFloating(true);
    sparsifierDock->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(sparsifierDock));
    threshold->setFocus();
    QCOMPARE(QApplication::focusWidget(), threshold);
    QTest::keyClick(threshold, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(stack->index(), applied - 1);
    QTest::keyClick(threshold, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(stack->index(), applied);
    sparsifierDock->setFloating(false);

    // The schedule's text is no document edit: Ctrl+Z there is the field's own undo.
    auto *schedule = window.findChild<QLineEdit *>(QStringLiteral("sparsifier.schedule"));
    schedule->setFocus();
    const QString before = schedule->text();
    QTest::keyClicks(schedule, QStringLiteral("5"));
    QTest::keyClick(schedule, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(schedule->text(), before);
    QCOMPARE(stack->index(), applied);
}

void TestMainWindow::reopeningAFileKeepsTheTreeAndTheView()
{
    // Opening a file already open lists it again. Every other file collapsed and nothing
    // stayed current: the preview went blank while the tensor was still "shown".
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("copy.h5"));
    QVERIFY(QFile::copy(kSample, copy));
    MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.openFile(copy));
    QVERIFY(window.selectElement(QStringLiteral("/emb"), QFileInfo(kSample).absoluteFilePath()));
    QVERIFY(window.openFile(kSample));
    auto *tree = window.findChild<QTreeView *>();
    auto *model = window.browserModel();
    QCOMPARE(model->fileCount(), 2);
    QVERIFY(tree->isExpanded(model->fileIndex(QFileInfo(kSample).absoluteFilePath())));
    QVERIFY(tree->isExpanded(model->fileIndex(QFileInfo(copy).absoluteFilePath())));
    QCOMPARE(window.document()->source().filePath, QFileInfo(kSample).absoluteFilePath());
    QCOMPARE(window.document()->source().elementPath, QStringLiteral("/emb"));
    const auto current = tree->currentIndex();
    QVERIFY(current.isValid());
    QCOMPARE(model->filePath(current), QFileInfo(kSample).absoluteFilePath());
    QCOMPARE(model->objectPath(current), QStringLiteral("/emb"));
    QVERIFY(!window.document()->values().values.empty());
    // The Open and Save workspace dialogs start beside the file shown.
    QCOMPARE(window.dialogFolder(), QFileInfo(kSample).absolutePath());
    QVERIFY(window.selectElement(QStringLiteral("/emb"), QFileInfo(copy).absoluteFilePath()));
    QCOMPARE(window.dialogFolder(), QFileInfo(copy).absolutePath());
}

// The heatmap's title names the file as the Files panel does, also when the label changes
// while the tensor is shown: a second sample.h5 opened, then closed.
void TestMainWindow::titlesFollowTheFileLabel()
{
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("sample.h5"));
    QVERIFY(QFile::copy(kSample, copy));
    MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    QVERIFY2(window.preview()->titleText().startsWith(QStringLiteral("sample.h5  /emb")),
             qPrintable(window.preview()->titleText()));
    QVERIFY(window.openFile(copy));
    QVERIFY(window.selectElement(QStringLiteral("/emb"), QFileInfo(kSample).absoluteFilePath()));
    const auto labelled = QStringLiteral("sample.h5 — %1  /emb").arg(sparsity::ui::shownFolder(kSample));
    QCOMPARE(window.document()->title(), labelled);
    QVERIFY2(window.preview()->titleText().startsWith(labelled), qPrintable(window.preview()->titleText()));
    QVERIFY(window.closeFile(QFileInfo(copy).absoluteFilePath()));
    QCOMPARE(window.document()->source().filePath, QFileInfo(kSample).absoluteFilePath()); // still shown
    QCOMPARE(window.document()->title(), QStringLiteral("sample.h5  /emb"));
    QVERIFY2(window.preview()->titleText().startsWith(QStringLiteral("sample.h5  /emb")),
             qPrintable(window.preview()->titleText()));
    QVERIFY(window.windowTitle().startsWith(QStringLiteral("sample.h5 /emb")));
}

void TestMainWindow::filesColumnsFitTheDock()
{
    // At 1280x720 the name and nnz columns are in view, whole, without scrolling (nnz was pushed
    // out by the widths of every column's contents); the layout takes what is left (elided,
    // whole in its tooltip).
    MainWindow window;
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openFile(kSample));
    auto *tree = window.findChild<QTreeView *>();
    tree->expandAll();
    QCoreApplication::processEvents();
    auto *header = tree->header();
    QVERIFY(tree->isColumnHidden(H5BrowserModel::Encoding));
    const auto file0 = window.browserModel()->index(0, 0);
    for (int row = 0; row < window.browserModel()->rowCount(file0); ++row) { // names whole, not elided
        const auto name = window.browserModel()->index(row, H5BrowserModel::Name, file0);
        QVERIFY(tree->visualRect(name).width() >= tree->fontMetrics().horizontalAdvance(name.data().toString()));
    }
    for (int column : {H5BrowserModel::Name, H5BrowserModel::Shape, H5BrowserModel::Nnz}) {
        QVERIFY(!tree->isColumnHidden(column));
        QVERIFY2(header->sectionViewportPosition(column) + header->sectionSize(column) <= tree->viewport()->width(),
                 qPrintable(QStringLiteral("column %1 ends at %2 of %3")
                                .arg(column)
                                .arg(header->sectionViewportPosition(column) + header->sectionSize(column))
                                .arg(tree->viewport()->width())));
    }
    const auto file = window.browserModel()->index(0, 0);
    const auto emb = window.browserModel()->index(1, H5BrowserModel::Name, file);
    QVERIFY(window.browserModel()->data(emb, Qt::ToolTipRole).toString().startsWith(QLatin1Char('/')));
    QVERIFY(!window.browserModel()->data(emb.siblingAtColumn(H5BrowserModel::Layout), Qt::ToolTipRole).toString().isEmpty());
    // The header's context menu shows the encoding again.
    bool shown = false;
    QTimer::singleShot(0, this, [&] {
        auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
        QVERIFY(menu);
        auto *encoding = menu->findChild<QAction *>(QStringLiteral("action.files.column.%1").arg(H5BrowserModel::Encoding));
        QVERIFY(encoding && !encoding->isChecked());
        encoding->trigger();
        menu->close();
        shown = true;
    });
    emit header->customContextMenuRequested(QPoint(10, 5));
    QVERIFY(shown);
    QVERIFY(!tree->isColumnHidden(H5BrowserModel::Encoding));
}

void TestMainWindow::clickOutlinesWithoutWashing()
{
    MainWindow window;
    window.resize(1200, 680);
    window.show();
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/W")));
    auto *preview = window.preview();
    const QImage before = preview->grab().toImage();
    QTest::mouseClick(preview, Qt::LeftButton, {}, preview->positionOf(10, 3));
    QCOMPARE(window.document()->selectedCount(), 1);
    QVERIFY(preview->selectionWash().isNull());
    // Away from the clicked element the map looks as it did.
    const QImage after = preview->grab().toImage();
    const QPoint far = preview->positionOf(50, 8);
    QCOMPARE(after.pixel(far), before.pixel(far));
}

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
