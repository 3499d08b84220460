// The main window fits a 1280 x 720 screen (a title bar taken off): its minimum size, and
// every dock's, with each panel raised in turn; docks shown side by side never overlap.
#include "ui/document/tensor_document.h"
#include "ui/jobs/job_runner.h"
#include "ui/mainwindow/files_name_column.h"
#include "ui/mainwindow/main_window.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>
#include <QWheelEvent>

using sparsity::ui::MainWindow;

namespace {

const QSize kScreen(1280, 690); // 1280 x 720 less a title bar

bool fits(const QSize &size) { return size.width() <= kScreen.width() && size.height() <= kScreen.height(); }

// Top to bottom in view (a dock narrower than its panel scrolls sideways: the offscreen
// platform's right column is narrower than a desktop's).
bool wholeHeightInView(const QWidget *widget)
{
    const auto seen = widget->visibleRegion().boundingRect();
    return !seen.isEmpty() && seen.top() == 0 && seen.height() == widget->height();
}

QString describe(const QSize &size) { return QStringLiteral("%1 x %2").arg(size.width()).arg(size.height()); }

} // namespace

class TestScreenFit : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests-screen-fit")); }
    void minimumSizeFitsWithEveryPanelRaised();
    void menusRaiseOptimizerAndGradcheck();
    void wheelScrollsPanelsNotTheirBoxes();
    void eachPanelsActionIsInViewWhole();
    void aRunsSummaryAndResultsComeIntoView();
    void aLongStatusMessageEndsInAnEllipsis();
    void gradientListGrowsWithTheWindow();
    void aLongFileNameKeepsTheColumnsInView();
    void aNameColumnSizedByHandStays();
    void inspectorShowsEveryRowWithoutScrolling();
};

static const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

// The sample's /emb shown in a window of the screen's size.
static bool showSampleOnScreen(MainWindow &window)
{
    if (!window.openFile(kSample) || !window.selectElement(QStringLiteral("/emb")))
        return false;
    window.show();
    window.resize(kScreen);
    return QTest::qWaitForWindowExposed(&window);
}

void TestScreenFit::minimumSizeFitsWithEveryPanelRaised()
{
    MainWindow window;
    QVERIFY(showSampleOnScreen(window));
    const auto docks = window.findChildren<QDockWidget *>();
    QVERIFY(docks.size() >= 6);
    for (auto *raised : docks) {
        raised->show();
        raised->raise();
        QCoreApplication::processEvents();
        const QString context = QStringLiteral("with %1 raised").arg(raised->windowTitle());
        QVERIFY2(fits(window.minimumSizeHint()), qPrintable(context + ": window minimum " + describe(window.minimumSizeHint())));
        QVERIFY2(fits(window.minimumSize().expandedTo(window.minimumSizeHint())), qPrintable(context));
        QVERIFY2(window.size().height() <= kScreen.height(), qPrintable(context + ": window " + describe(window.size())));
        QVERIFY2(!raised->visibleRegion().isEmpty(), qPrintable(context + ": it is not visible"));
        QVERIFY2(window.rect().contains(raised->geometry()), qPrintable(context + ": off the window"));
        QList<QDockWidget *> shown;
        for (auto *dock : docks)
            if (!dock->visibleRegion().isEmpty())
                shown << dock;
        for (auto *dock : shown) {
            QVERIFY2(fits(dock->minimumSizeHint()),
                     qPrintable(context + ": " + dock->windowTitle() + " minimum " + describe(dock->minimumSizeHint())));
            for (auto *other : shown)
                if (other != dock)
                    QVERIFY2(!dock->geometry().intersects(other->geometry()),
                             qPrintable(context + ": " + dock->windowTitle() + " overlaps " + other->windowTitle()));
        }
    }
}

// Show Optimizer, Show Gradcheck and Show Sparsifier raise their dock and give its first field
// the focus; Go to Files focuses the tree.
void TestScreenFit::menusRaiseOptimizerAndGradcheck()
{
    MainWindow window;
    window.show();
    window.resize(kScreen);
    QVERIFY(QTest::qWaitForWindowActive(&window));
    const QList<std::pair<QString, QString>> menus{{QStringLiteral("action.optimize.show"), QStringLiteral("OptimizerDock")},
                                                   {QStringLiteral("action.gradcheck.show"), QStringLiteral("GradcheckDock")},
                                                   {QStringLiteral("action.sparsify.show"), QStringLiteral("SparsifierDock")}};
    for (const auto &[actionName, dockName] : menus) {
        auto *action = window.findChild<QAction *>(actionName);
        QVERIFY2(action, qPrintable(actionName));
        auto *dock = window.findChild<QDockWidget *>(dockName);
        QVERIFY(dock);
        window
            .findChild<QDockWidget *>(dockName == QStringLiteral("SparsifierDock") ? QStringLiteral("OptimizerDock")
                                                                                   : QStringLiteral("SparsifierDock"))
            ->raise();
        QCoreApplication::processEvents();
        QVERIFY(dock->visibleRegion().isEmpty());
        action->trigger();
        QCoreApplication::processEvents();
        QVERIFY2(!dock->visibleRegion().isEmpty(), qPrintable(dockName));
        // Its first field has the focus, ready for keys (the scroll area around it had it).
        auto *focus = QApplication::focusWidget();
        QVERIFY2(focus && dock->isAncestorOf(focus) && !qobject_cast<QScrollArea *>(focus),
                 qPrintable(dockName + QStringLiteral(": ") + (focus ? focus->metaObject()->className() : "none")));
    }
    QCOMPARE(window.findChild<QAction *>(QStringLiteral("action.optimize.show"))->shortcut(),
             QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    QCOMPARE(window.findChild<QAction *>(QStringLiteral("action.gradcheck.show"))->shortcut(),
             QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
    QCOMPARE(window.findChild<QAction *>(QStringLiteral("action.sparsify.show"))->shortcut(),
             QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    // And back to the Files tree from anywhere, by its key as a user presses it.
    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier | Qt::ShiftModifier);
    QTRY_VERIFY(qobject_cast<QTreeView *>(QApplication::focusWidget()));
}

void TestScreenFit::wheelScrollsPanelsNotTheirBoxes()
{
    // Turning the wheel over the Optimizer panel scrolls it, also where its Mask box is under
    // the pointer: a box changes by wheel only once it has focus.
    MainWindow window;
    QVERIFY(showSampleOnScreen(window));
    auto *dock = window.findChild<QDockWidget *>(QStringLiteral("OptimizerDock"));
    dock->raise();
    QCoreApplication::processEvents();
    auto *mask = window.findChild<QComboBox *>(QStringLiteral("optimizer.mask"));
    auto *scroll = window.findChild<QScrollArea *>(QStringLiteral("optimizer.scroll"));
    QVERIFY(mask && scroll);
    QVERIFY(mask->count() > 1);
    auto *bar = scroll->verticalScrollBar();
    QVERIFY2(bar->maximum() > 0, "the Optimizer panel does not scroll at 1280 x 690");
    const int index = mask->currentIndex();
    const auto wheelDown = [&] {
        const QPointF at(mask->width() / 2.0, mask->height() / 2.0);
        QWheelEvent wheel(at, mask->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                          false);
        QApplication::sendEvent(mask, &wheel);
    };
    QVERIFY(!mask->hasFocus());
    wheelDown();
    QCOMPARE(mask->currentIndex(), index);
    QVERIFY(bar->value() > 0);
    // Clicked into (focused), the box takes the wheel.
    window.activateWindow();
    mask->setFocus(Qt::MouseFocusReason);
    QTRY_VERIFY(mask->hasFocus());
    wheelDown();
    QVERIFY(mask->currentIndex() != index);
}

// Raised at 1280 x 720, each panel shows its action without scrolling down: the Sparsifier's
// Apply, the Optimizer's Run (it was below the fold, under the Mask box; it now stays below the
// panel's scrolling form at any height) and the Gradcheck's Check.
void TestScreenFit::eachPanelsActionIsInViewWhole()
{
    MainWindow window;
    QVERIFY(showSampleOnScreen(window));
    const QList<std::pair<QString, QString>> actions{{QStringLiteral("SparsifierDock"), QStringLiteral("sparsifier.apply")},
                                                     {QStringLiteral("OptimizerDock"), QStringLiteral("optimizer.run")},
                                                     {QStringLiteral("GradcheckDock"), QStringLiteral("gradcheck.run")}};
    for (const auto &[dockName, buttonName] : actions) {
        window.findChild<QDockWidget *>(dockName)->raise();
        QCoreApplication::processEvents();
        auto *button = window.findChild<QPushButton *>(buttonName);
        QVERIFY2(button, qPrintable(buttonName));
        QVERIFY2(wholeHeightInView(button), qPrintable(buttonName + QStringLiteral(" is below the fold")));
    }
    // Shorter still (the window's least height), Run stays in view: the form scrolls above it.
    window.findChild<QDockWidget *>(QStringLiteral("OptimizerDock"))->raise();
    window.resize(window.width(), window.minimumSizeHint().height());
    QCoreApplication::processEvents();
    QVERIFY(wholeHeightInView(window.findChild<QPushButton *>(QStringLiteral("optimizer.run"))));
}

// After Run, what the run did is in view below Run, and its table and matrix are scrolled to
// (they were under the form, and a click on Run changed nothing a user could see).
void TestScreenFit::aRunsSummaryAndResultsComeIntoView()
{
    MainWindow window;
    QVERIFY(showSampleOnScreen(window));
    window.findChild<QDockWidget *>(QStringLiteral("OptimizerDock"))->raise();
    QCoreApplication::processEvents();
    auto *gradients = window.findChild<QListWidget *>(QStringLiteral("optimizer.gradients"));
    gradients->findItems(QStringLiteral("/g0"), Qt::MatchExactly).first()->setCheckState(Qt::Checked);
    auto *table = window.findChild<QWidget *>(QStringLiteral("optimizer.divergence"));
    QVERIFY(table->visibleRegion().isEmpty()); // below the form
    QSignalSpy finished(window.jobs(), &sparsity::ui::JobRunner::finished);
    window.findChild<QPushButton *>(QStringLiteral("optimizer.run"))->click();
    QVERIFY(finished.wait(60000));
    QVERIFY(finished.first().at(0).toBool());
    QCoreApplication::processEvents();
    auto *summary = window.findChild<QLabel *>(QStringLiteral("optimizer.summary"));
    QVERIFY2(summary->text().contains(QStringLiteral("/g0")), qPrintable(summary->text()));
    QVERIFY(wholeHeightInView(summary));
    QVERIFY(!table->visibleRegion().isEmpty());
    // Undo and Redo change the run shown, but leave the form where the user scrolled it.
    auto *bar = window.findChild<QScrollArea *>(QStringLiteral("optimizer.scroll"))->verticalScrollBar();
    bar->setValue(0);
    window.document()->undoStack()->undo();
    window.document()->undoStack()->redo();
    QCoreApplication::processEvents();
    QVERIFY(window.document()->optimizerRun());
    QCOMPARE(bar->value(), 0);
    // Tab goes from the form to Run, then to the results.
    window.activateWindow();
    auto *mask = window.findChild<QWidget *>(QStringLiteral("optimizer.mask"));
    mask->setFocus(Qt::TabFocusReason);
    QTRY_VERIFY(mask->hasFocus());
    QTest::keyClick(mask, Qt::Key_Tab);
    QCOMPARE(QApplication::focusWidget(), window.findChild<QWidget *>(QStringLiteral("optimizer.run")));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
    QCOMPARE(QApplication::focusWidget(), table);
}

// An error naming a long path did not fit beside the jobs and the device, and QStatusBar cut
// it off mid-word, no sign that more was said. It now ends in "…" where the device label
// begins, the whole message in the tooltip, and takes the room a wider window gives it.
void TestScreenFit::aLongStatusMessageEndsInAnEllipsis()
{
    MainWindow window;
    QVERIFY(showSampleOnScreen(window));
    const QString missing = QStringLiteral("/tmp/") + QString(180, QLatin1Char('a')) + QStringLiteral("/missing.h5");
    QVERIFY(!window.openFile(missing));
    auto *bar = window.statusBar();
    const auto *device = [&] {
        for (auto *label : bar->findChildren<QLabel *>())
            if (label->text().startsWith(QStringLiteral("Device:")))
                return label;
        return static_cast<QLabel *>(nullptr);
    }();
    QVERIFY(device);
    const auto narrow = bar->currentMessage();
    QVERIFY2(narrow.startsWith(QStringLiteral("Error: ")) && narrow.endsWith(QChar(0x2026)), qPrintable(narrow));
    QVERIFY2(bar->fontMetrics().horizontalAdvance(narrow) < device->x(), qPrintable(narrow));
    QVERIFY2(bar->toolTip().startsWith(QStringLiteral("Error: ")) && bar->toolTip().contains(QStringLiteral("/missing.h5")),
             qPrintable(bar->toolTip()));

    window.resize(2560, 690);
    QTRY_VERIFY(bar->currentMessage().size() > narrow.size());
    QVERIFY(bar->currentMessage().startsWith(narrow.chopped(1)));

    // Another message takes its place, and the tooltip goes with it.
    bar->showMessage(QStringLiteral("something else"));
    QVERIFY(bar->toolTip().isEmpty());
}

// The Optimizer's gradient list had a fixed 90 pixels: at 2560x1440 it scrolled through the
// sample's eight elements beside a tall empty panel. It keeps its 90 pixels at 1280x720 and
// shows every element when the window has room.
void TestScreenFit::gradientListGrowsWithTheWindow()
{
    MainWindow window;
    QVERIFY(showSampleOnScreen(window));
    window.findChild<QAction *>(QStringLiteral("action.optimize.show"))->trigger();
    auto *list = window.findChild<QListWidget *>(QStringLiteral("optimizer.gradients"));
    QVERIFY(list && list->count() == 8);
    QTRY_COMPARE(list->height(), 90);
    window.resize(2560, 1440);
    QTRY_VERIFY2(list->verticalScrollBar()->maximum() == 0, qPrintable(QString::number(list->height())));
    QVERIFY(list->height() < 90 + 8 * list->sizeHintForRow(0)); // as tall as its rows, not more
    window.resize(kScreen);
    QTRY_COMPARE(list->height(), 90);
}

// The Files tree sized its Name column to every row, so one long file name pushed Layout,
// Shape, dtype and nnz out of the dock at 1280x720. The file's name now ends in "…" past
// kFileNameRoom pixels, and the columns stay in view (by eye under Xvfb at 1280x720).
void TestScreenFit::aLongFileNameKeepsTheColumnsInView()
{
    QTemporaryDir dir;
    const auto longName = dir.filePath(QStringLiteral("embedding_table_checkpoint_epoch_042_after_rownorm_pruning.h5"));
    QVERIFY(QFile::copy(kSample, longName));
    MainWindow window;
    QVERIFY(showSampleOnScreen(window));
    auto *tree = window.findChild<QTreeView *>();
    QVERIFY(tree);
    QTRY_VERIFY(tree->header()->sectionSize(0) > 0);
    const int sampleOnly = tree->header()->sectionSize(0);
    QVERIFY(window.openFile(longName));
    // Sized to every row, the column took the whole long name (about 400 pixels).
    QTest::qWait(50);
    QVERIFY2(tree->header()->sectionSize(0) <= std::max(sampleOnly, sparsity::ui::kFileNameRoom),
             qPrintable(QString::number(tree->header()->sectionSize(0))));
    // The whole name is the file row's tooltip.
    const auto *model = tree->model();
    bool found = false;
    for (int row = 0; row < model->rowCount(); ++row)
        found = found || model->index(row, 0).data(Qt::ToolTipRole).toString().endsWith(QFileInfo(longName).fileName());
    QVERIFY(found);
}

// The Name column was fitted again at every change of the tree, undoing a width the user had
// dragged. A drag now holds until a double click on the column's edge fits it again.
void TestScreenFit::aNameColumnSizedByHandStays()
{
    QTemporaryDir dir;
    const auto second = dir.filePath(QStringLiteral("second.h5"));
    QVERIFY(QFile::copy(kSample, second));
    MainWindow window;
    QVERIFY(showSampleOnScreen(window));
    auto *tree = window.findChild<QTreeView *>();
    QVERIFY(tree);
    auto *header = tree->header();
    QTRY_VERIFY(header->sectionSize(0) > 0);
    const int fitted = header->sectionSize(0);
    // Drag the edge between Name and the next column 120 pixels to the right.
    const int edge = header->sectionViewportPosition(0) + header->sectionSize(0) - 1;
    const QPoint from(edge, header->height() / 2), to(edge + 120, header->height() / 2);
    QTest::mousePress(header->viewport(), Qt::LeftButton, {}, from);
    QTest::mouseMove(header->viewport(), to);
    QTest::mouseRelease(header->viewport(), Qt::LeftButton, {}, to);
    const int dragged = header->sectionSize(0);
    QVERIFY2(dragged > fitted + 60, qPrintable(QStringLiteral("%1 -> %2").arg(fitted).arg(dragged)));
    // Rows come (a second file) and go (it is collapsed): the width stays the user's.
    QVERIFY(window.openFile(second));
    QTest::qWait(50);
    QCOMPARE(header->sectionSize(0), dragged);
    tree->collapseAll();
    QTest::qWait(50);
    QCOMPARE(header->sectionSize(0), dragged);
    tree->expandAll();
    // A double click on the edge fits it again, no wider than the names need.
    const int newEdge = header->sectionViewportPosition(0) + header->sectionSize(0) - 1;
    QTest::mouseDClick(header->viewport(), Qt::LeftButton, {}, QPoint(newEdge, header->height() / 2));
    QTRY_VERIFY2(header->sectionSize(0) < dragged, qPrintable(QString::number(header->sectionSize(0))));
    const int refitted = header->sectionSize(0);
    tree->collapseAll();
    tree->expandAll();
    QTest::qWait(50);
    QCOMPARE(header->sectionSize(0), refitted);
}

// At 1280 x 720 the Inspector's rows, Selection the last, show without scrolling (a fixed
// share of the column cut it), with room for an Optimizer row of three lines.
void TestScreenFit::inspectorShowsEveryRowWithoutScrolling()
{
    MainWindow window;
    QVERIFY(showSampleOnScreen(window));
    auto *scroll = window.findChild<QScrollArea *>(QStringLiteral("InspectorDock.scroll"));
    QVERIFY(scroll);
    QCoreApplication::processEvents();
    const int needed = scroll->widget()->sizeHint().height() + 2 * scroll->fontMetrics().lineSpacing();
    QVERIFY2(scroll->viewport()->height() >= needed,
             qPrintable(QStringLiteral("Inspector %1 px tall, its rows and two more lines need %2")
                            .arg(scroll->viewport()->height())
                            .arg(needed)));
    QCOMPARE(scroll->verticalScrollBar()->maximum(), 0);
}

QTEST_MAIN(TestScreenFit)
#include "tst_screen_fit.moc"
