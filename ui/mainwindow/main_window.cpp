#include "ui/mainwindow/main_window.h"

#include "core/device/device.h"
#include "core/io/h5_reader.h"
#include "core/util/errors.h"
#include "ui/dialogs/export_destination.h"
#include "ui/dialogs/export_dialog.h"
#include "ui/document/document_recipe.h"
#include "ui/document/recipe_fit.h"
#include "ui/document/tensor_document.h"
#include "ui/document/tensor_loader.h"
#include "ui/jobs/document_jobs.h"
#include "ui/jobs/job_runner.h"
#include "ui/jobs/jobs_widget.h"
#include "ui/jobs/overview_builder.h"
#include "ui/mainwindow/eliding_status_bar.h"
#include "ui/mainwindow/files_name_column.h"
#include "ui/mainwindow/files_tree_actions.h"
#include "ui/mainwindow/recent_files.h"
#include "ui/mainwindow/shortcut_precedence.h"
#include "ui/models/h5_browser_model.h"
#include "ui/models/issue_from_core.h"
#include "ui/models/issues_model.h"
#include "ui/panels/attributes_panel.h"
#include "ui/panels/gradcheck_panel.h"
#include "ui/panels/inspector_panel.h"
#include "ui/panels/issues_panel.h"
#include "ui/panels/optimizer_panel.h"
#include "ui/panels/scroll_wheel_guard.h"
#include "ui/panels/sparsifier_panel.h"
#include "ui/views/histogram_view.h"
#include "ui/views/overview_strip.h"
#include "ui/views/slice_bar.h"
#include "ui/views/tensor_preview.h"
#include "ui/workspace/workspace.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <QUndoStack>
#include <QVBoxLayout>
#include <functional>
#include <utility>

namespace sparsity::ui {
namespace {

// "a", "a and b", "a, b and c".
QString joinedList(const QStringList &items)
{
    if (items.size() < 2)
        return items.join(QString());
    return QStringList(items.mid(0, items.size() - 1)).join(QStringLiteral(", ")) + QObject::tr(" and ") + items.last();
}

constexpr int kMaxRecent = 8;

} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Sparsity Workbench[*]"));
    setAcceptDrops(true);
    m_statusBar = new ElidingStatusBar;
    setStatusBar(m_statusBar);

    m_document = new TensorDocument(this);
    m_model = new H5BrowserModel(this);
    m_tree = new QTreeView;
    m_tree->setModel(m_model);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    // The dock is narrow at 1280x720: the layout takes what the other columns leave (elided,
    // whole in its tooltip) so names and nnz stay whole and in view (a long file name elided
    // too: files_name_column.h), and the encoding, also in the Attributes dock, is hidden until
    // asked for from the header's context menu.
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(H5BrowserModel::Layout, QHeaderView::Stretch);
    m_tree->header()->setMinimumSectionSize(40);
    keepNameColumnFitted(m_tree);
    m_tree->setColumnHidden(H5BrowserModel::Encoding, true);
    m_tree->header()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree->header(), &QWidget::customContextMenuRequested, this, [this](const QPoint &at) {
        QMenu menu;
        for (int column = H5BrowserModel::Name + 1; column < H5BrowserModel::ColumnCount; ++column) {
            auto *action = menu.addAction(m_model->headerData(column, Qt::Horizontal).toString(), this,
                                          [this, column](bool shown) { m_tree->setColumnHidden(column, !shown); });
            action->setCheckable(true);
            action->setChecked(!m_tree->isColumnHidden(column));
            action->setObjectName(QStringLiteral("action.files.column.%1").arg(column));
        }
        menu.exec(m_tree->header()->mapToGlobal(at));
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this] { showSelected(); });

    auto *filesDock = addDock(tr("Files"), QStringLiteral("FilesDock"), m_tree, Qt::LeftDockWidgetArea, false);

    m_issues = new IssuesModel(this);
    connect(m_issues, &QAbstractItemModel::rowsInserted, this, &MainWindow::updateIssuesTitle);
    connect(m_issues, &QAbstractItemModel::modelReset, this, &MainWindow::updateIssuesTitle);
    auto *issuesPanel = new IssuesPanel(m_issues);
    connect(issuesPanel, &IssuesPanel::jumpRequested, this, &MainWindow::jumpTo);
    auto *issuesDock = m_issuesDock =
        addDock(tr("Issues"), QStringLiteral("IssuesDock"), issuesPanel, Qt::BottomDockWidgetArea, false);
    // The right column (the tall Sparsifier, Optimizer and Gradcheck panels, the Inspector) runs
    // down to the status bar; the Issues dock spans the files and the map only. At 1280 x 720
    // that gives the panels the height they would otherwise scroll for.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);

    m_histogram = new HistogramView(m_document);
    auto *histogramDock = addDock(tr("Histogram"), QStringLiteral("HistogramDock"), m_histogram, Qt::LeftDockWidgetArea, false);

    m_sparsifier = new SparsifierPanel(m_document);
    auto *sparsifierDock =
        addDock(tr("Sparsifier"), QStringLiteral("SparsifierDock"), m_sparsifier, Qt::RightDockWidgetArea, true);

    m_optimizer = new OptimizerPanel(m_document);
    auto *optimizerDock = m_optimizerDock =
        addDock(tr("Optimizer"), QStringLiteral("OptimizerDock"), m_optimizer, Qt::RightDockWidgetArea, false); // scrolls inside
    tabifyDockWidget(sparsifierDock, optimizerDock);
    connect(m_optimizer, &OptimizerPanel::runRequested, this,
            [this](const OptimizerRequest &r) { m_documentJobs->runOptimizer(r); });

    m_gradcheck = new GradcheckPanel(m_document);
    auto *gradcheckDock = m_gradcheckDock =
        addDock(tr("Gradcheck"), QStringLiteral("GradcheckDock"), m_gradcheck, Qt::RightDockWidgetArea, true);
    tabifyDockWidget(optimizerDock, gradcheckDock);
    sparsifierDock->raise();
    connect(m_gradcheck, &GradcheckPanel::runRequested, this,
            [this](const GradcheckPanelRequest &r) { m_documentJobs->runGradcheck(r); });
    connect(m_document, &TensorDocument::tensorChanged, this, &MainWindow::offerElements);
    connect(m_document, &TensorDocument::tensorChanged, this, &MainWindow::updateTitle);
    connect(m_document->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateModified);
    // The forms outside the undo history change the workspace too (a learning rate typed).
    connect(m_optimizer, &OptimizerPanel::choicesChanged, this, &MainWindow::updateModified);
    connect(m_gradcheck, &GradcheckPanel::choicesChanged, this, &MainWindow::updateModified);
    // Undoing an edit of a tensor not shown brings that tensor back on screen.
    connect(m_document, &TensorDocument::showRequested, this, [this](const TensorSource &source) {
        selectElement(source.elementPath, source.filePath);
        const auto &shown = m_document->source();
        if (shown.filePath != source.filePath || shown.elementPath != source.elementPath || shown.firstRow != source.firstRow)
            loadRows(source.firstRow);
    });
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &MainWindow::offerElements);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &MainWindow::offerElements);
    connect(m_model, &QAbstractItemModel::modelReset, this, &MainWindow::offerElements);
    // A file label changed (another file of its name opened or closed): the titles follow.
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this] {
        const auto &source = m_document->source();
        if (!source.filePath.isEmpty())
            m_document->setTitle(elementTitle(source.filePath, source.elementPath));
        updateTitle();
    });

    m_inspector = new InspectorPanel(m_document);
    auto *inspectorDock = addDock(tr("Inspector"), QStringLiteral("InspectorDock"), m_inspector, Qt::RightDockWidgetArea, true);
    // Never shorter than its rows with three more lines (an Optimizer row of three semantics,
    // and a stale run's line): the Sparsifier above it scrolls instead. At 1280 x 720 its
    // share of the column cut the Selection row.
    auto *inspectorScroll = qobject_cast<QScrollArea *>(inspectorDock->widget());
    inspectorScroll->setMinimumHeight(m_inspector->sizeHint().height() + 3 * fontMetrics().lineSpacing()
                                      + 2 * inspectorScroll->frameWidth());
    // Attributes shares the Inspector's tab: a dock of its own would not fit 1280 x 720.
    m_attributes = new AttributesPanel;
    auto *attributesDock =
        addDock(tr("Attributes"), QStringLiteral("AttributesDock"), m_attributes, Qt::RightDockWidgetArea, false);
    tabifyDockWidget(inspectorDock, attributesDock);
    inspectorDock->raise();
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this] { showAttributes(); });
    // Closing the current row's file (or listing a file again) leaves no current row with no
    // currentChanged: the panel must not go on showing the closed file's attributes.
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, [this] { showAttributes(); });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { showAttributes(); });
    auto *treeActions = new FilesTreeActions(m_tree, m_model);
    connect(treeActions, &FilesTreeActions::previewRequested, this, [this](const QModelIndex &row) {
        const auto target = m_model->element(row) ? row : m_model->index(0, 0, row); // a file: its first tensor
        if (!target.isValid())
            return;
        m_tree->expand(target.parent());
        if (target == m_tree->currentIndex().siblingAtColumn(0))
            showSelected(); // again: after a failed read, or to bring back the file's own rows
        else
            m_tree->setCurrentIndex(target);
    });
    connect(treeActions, &FilesTreeActions::closeRequested, this, [this](const QString &path) { closeFile(path); });
    connect(treeActions, &FilesTreeActions::attributesRequested, this, [this, attributesDock] {
        attributesDock->show();
        attributesDock->raise();
        showAttributes();
    });

    m_preview = new TensorPreview(m_document);
    auto *centre = new QWidget;
    auto *centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    m_rowScroll = new QScrollBar(Qt::Vertical);
    m_rowScroll->setObjectName(QStringLiteral("heatmap.rows"));
    m_rowScroll->setTracking(false); // load the rows where the handle is let go
    m_rowScroll->setToolTip(tr("Rows of a table too large to load whole"));
    m_rowScroll->hide();
    connect(m_rowScroll, &QScrollBar::valueChanged, this, [this](int first) { moveRowWindow(first); });
    m_overviewStrip = new OverviewStrip;
    m_overviewStrip->hide();
    auto *heatmapRow = new QHBoxLayout;
    heatmapRow->addWidget(m_preview, 1);
    heatmapRow->addWidget(m_overviewStrip);
    heatmapRow->addWidget(m_rowScroll);
    centreLayout->addLayout(heatmapRow, 1);
    centreLayout->addWidget(new SliceBar(m_document));
    setCentralWidget(centre);

    m_loader = new TensorLoader(this);
    connect(m_loader, &TensorLoader::loaded, this, [this](const std::shared_ptr<const TensorLoad> &load) { showLoad(*load); });
    connect(m_loader, &TensorLoader::failed, this, &MainWindow::showLoadFailure);
    m_jobs = new JobRunner(this);
    m_overviewBuilder = new OverviewBuilder(this);
    connect(m_overviewBuilder, &OverviewBuilder::progressed, m_overviewStrip, [this] { m_overviewStrip->overviewChanged(); });
    connect(m_overviewBuilder, &OverviewBuilder::finished, m_overviewStrip, [this] { m_overviewStrip->overviewChanged(true); });
    connect(m_overviewBuilder, &OverviewBuilder::failed, this, [this](const QString &error) {
        m_overviewStrip->hide();
        const auto &element = m_overviewBuilder->element();
        addIssue(issueFromMessage(Issue::Severity::Error, error, {element.file}, {element.file, element.path}));
    });
    connect(m_overviewStrip, &OverviewStrip::windowRequested, this,
            [this](std::int64_t first) { m_rowScroll->setValue(static_cast<int>(first)); });
    m_documentJobs = new DocumentJobs(m_document, m_jobs, this);
    connect(m_documentJobs, &DocumentJobs::issue, this, &MainWindow::addIssue);
    connect(m_documentJobs, &DocumentJobs::failed, this, [this](DocumentJobs::Kind kind, const QString &error) {
        if (kind == DocumentJobs::Kind::Gradcheck)
            m_gradcheck->showFailure(error);
        else if (kind == DocumentJobs::Kind::Optimizer)
            m_optimizer->showFailure(error);
    });
    // Cancelled, a panel shows its last result again (the document kept it), not a failure.
    connect(m_documentJobs, &DocumentJobs::cancelled, this, [this](DocumentJobs::Kind kind) {
        if (kind == DocumentJobs::Kind::Gradcheck)
            m_gradcheck->showRun();
        else if (kind == DocumentJobs::Kind::Optimizer)
            m_optimizer->showRun();
    });
    connect(m_documentJobs, &DocumentJobs::status, this,
            [this](const QString &text) { m_statusBar->showWholeMessage(text, 8000); });
    m_statusBar->addPermanentWidget(new JobsWidget(m_jobs));

    createActions();
    const auto &device = core::deviceStatus();
    m_statusBar->addPermanentWidget(new QLabel(device.cudaDevices > 0
                                                   ? tr("Device: CUDA (%1)").arg(QString::fromStdString(device.cudaDescription))
                                                   : tr("Device: CPU")));

    // The first window fills most of the screen it is on, never more, and its side docks take
    // their share of it: on a 2560 x 1440 screen they stayed 340 and 400 pixels wide beside a
    // heatmap of 1700.
    const QSize available = screen() ? screen()->availableSize() : QSize(1280, 690);
    const QSize first = QSize(std::max(1500, available.width() * 85 / 100), std::max(950, available.height() * 85 / 100))
                            .boundedTo(available - QSize(0, 30));
    resize(first);
    resizeDocks({filesDock, sparsifierDock}, {std::max(340, first.width() * 22 / 100), std::max(400, first.width() * 27 / 100)},
                Qt::Horizontal);
    resizeDocks({sparsifierDock, inspectorDock}, {540, 190}, Qt::Vertical);
    resizeDocks({filesDock, histogramDock}, {300, 300}, Qt::Vertical);
    resizeDocks({issuesDock}, {110}, Qt::Vertical);
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_savedForms = workspaceJson(panelForms()); // the forms as they start: nothing changed yet
    updateModified();
}

MainWindow::~MainWindow()
{
    // The document's undo stack says it is clean as it is destroyed, after this window's
    // members: nothing may reach updateModified() then.
    disconnect(m_document->undoStack(), nullptr, this, nullptr);
    disconnect(m_optimizer, nullptr, this, nullptr);
    disconnect(m_gradcheck, nullptr, this, nullptr);
}

QDockWidget *
MainWindow::addDock(const QString &title, const QString &objectName, QWidget *widget, Qt::DockWidgetArea area, bool scrolls)
{
    auto *dock = new QDockWidget(title, this);
    dock->setObjectName(objectName); // saveState()/restoreState() find docks by name
    // A panel taller or wider than its dock scrolls instead of growing the window past the
    // screen (the window must fit 1280 x 720, see docs/ARCHITECTURE.md).
    if (scrolls) {
        auto *scroll = new QScrollArea;
        scroll->setObjectName(objectName + QStringLiteral(".scroll"));
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setWidget(widget);
        ScrollWheelGuard::install(scroll);
        widget = scroll;
    }
    dock->setWidget(widget);
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::createActions()
{
    auto *fileMenu = menuBar()->addMenu(tr("&File"));
    auto *open = fileMenu->addAction(tr("&Open…"), this, [this] {
        const auto path = QFileDialog::getOpenFileName(this, tr("Open HDF5 file"), dialogFolder(),
                                                       tr("HDF5 files (*.h5 *.hdf5 *.h5ad);;All files (*)"));
        if (!path.isEmpty())
            openFile(path);
    });
    open->setObjectName(QStringLiteral("action.file.open"));
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = fileMenu->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("menu.file.recent"));
    rebuildRecentMenu();
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu); // files come and go
    fileMenu->addSeparator();
    auto *openWorkspaceAction = fileMenu->addAction(tr("Open &Workspace…"), this, [this] {
        const auto path = QFileDialog::getOpenFileName(this, tr("Open workspace"), dialogFolder(), tr("Workspaces (*.json)"));
        if (!path.isEmpty())
            openWorkspace(path);
    });
    openWorkspaceAction->setObjectName(QStringLiteral("action.file.open_workspace"));
    auto *saveWorkspaceAction = fileMenu->addAction(tr("Save Works&pace…"), this, [this] {
        const auto path =
            QFileDialog::getSaveFileName(this, tr("Save workspace"), workspaceSaveTarget(), tr("Workspaces (*.json)"));
        if (!path.isEmpty())
            saveWorkspaceTo(path);
    });
    saveWorkspaceAction->setObjectName(QStringLiteral("action.file.save_workspace"));
    saveWorkspaceAction->setShortcut(QKeySequence::Save);
    fileMenu->addSeparator();
    auto *exportAction = fileMenu->addAction(tr("&Export Sparsified…"), this, &MainWindow::exportWithDialog);
    exportAction->setObjectName(QStringLiteral("action.file.export"));
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    auto *saveBatchAction = fileMenu->addAction(tr("Save as &Batch…"), this, &MainWindow::saveBatchWithDialog);
    saveBatchAction->setObjectName(QStringLiteral("action.file.save_batch"));
    saveBatchAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    fileMenu->addSeparator();
    auto *closeAction = fileMenu->addAction(tr("&Close File"), this, [this] {
        const auto index = m_tree->currentIndex();
        const QString path = index.isValid() ? m_model->filePath(index) : m_document->source().filePath;
        if (!path.isEmpty())
            closeFile(path);
    });
    closeAction->setObjectName(QStringLiteral("action.file.close"));
    closeAction->setShortcut(QKeySequence::Close);
    fileMenu->addSeparator();
    auto *quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setObjectName(QStringLiteral("action.file.quit"));
    quit->setShortcut(QKeySequence::Quit);

    auto *editMenu = menuBar()->addMenu(tr("&Edit"));
    auto *undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(QStringLiteral("action.edit.undo"));
    undo->setShortcuts(QKeySequence::Undo);
    auto *redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(QStringLiteral("action.edit.redo"));
    redo->setShortcuts(QKeySequence::Redo); // every binding: Ctrl+Y and Ctrl+Shift+Z on Linux
    editMenu->addAction(undo);
    editMenu->addAction(redo);
    auto *precedence = new ShortcutPrecedence(this);
    precedence->giveKeysTo(undo, m_sparsifier->recipeFields()); // the schedule's text keeps its own undo
    precedence->giveKeysTo(redo, m_sparsifier->recipeFields());
    precedence->giveKeysTo(exportAction);
    editMenu->addSeparator();
    auto *selectNone = editMenu->addAction(tr("Select &None"), this, [this] {
        // Esc that closes a popup or leaves a combo box, spin box or text field is theirs.
        auto *focus = QApplication::focusWidget();
        if (QApplication::activePopupWidget() || qobject_cast<QComboBox *>(focus) || qobject_cast<QAbstractSpinBox *>(focus)
            || qobject_cast<QLineEdit *>(focus))
            return;
        m_document->setSelection({});
    });
    selectNone->setObjectName(QStringLiteral("action.edit.select_none"));
    selectNone->setShortcut(QKeySequence(Qt::Key_Escape));

    auto *viewMenu = menuBar()->addMenu(tr("&View"));
    // The heatmap's keys work from anywhere in the window, except where the key means
    // something to the focused widget: a combo or spin box ignores it (Home in the Method box
    // must not pick its first method), a list or tree gets it (Home goes to its first row).
    const auto heatmapAction = [this, viewMenu](const QString &text, const QString &name, QList<QKeySequence> keys,
                                                std::function<void()> act) {
        const auto key = static_cast<Qt::Key>(keys.first()[0].key());
        auto *action = viewMenu->addAction(text);
        connect(action, &QAction::triggered, this, [action, key, act = std::move(act)] {
            auto *focus = QApplication::focusWidget();
            if (qobject_cast<QComboBox *>(focus) || qobject_cast<QAbstractSpinBox *>(focus) || qobject_cast<QLineEdit *>(focus))
                return;
            if (qobject_cast<QAbstractItemView *>(focus)) {
                // Delivered past this shortcut: a key event sent to a widget is tried as a
                // shortcut first, so the action is off while it goes.
                action->setEnabled(false);
                QKeyEvent press(QEvent::KeyPress, key, Qt::NoModifier);
                QCoreApplication::sendEvent(focus, &press);
                action->setEnabled(true);
                return;
            }
            act();
        });
        action->setObjectName(name);
        action->setShortcuts(keys);
        action->setShortcutContext(Qt::WindowShortcut);
    };
    heatmapAction(tr("Zoom &In"), QStringLiteral("action.view.zoom_in"),
                  {QKeySequence(Qt::Key_Plus), QKeySequence(Qt::Key_Equal), QKeySequence::ZoomIn},
                  [this] { m_preview->zoomBy(2.0); });
    heatmapAction(tr("Zoom &Out"), QStringLiteral("action.view.zoom_out"), {QKeySequence(Qt::Key_Minus), QKeySequence::ZoomOut},
                  [this] { m_preview->zoomBy(0.5); });
    heatmapAction(tr("Show &All"), QStringLiteral("action.view.show_all"), {QKeySequence(Qt::Key_Home)},
                  [this] { m_preview->resetView(); });
    // The heatmap's colour map is the overview strip's too. The panels' matrices (parameters,
    // states, differences, Jacobians: signed values) stay on the diverging map.
    viewMenu->addMenu(m_preview->colourMapMenu());
    viewMenu->addMenu(m_preview->colourRangeMenu());
    connect(m_preview, &TensorPreview::colourSettingsChanged, this,
            [this](const ColourSettings &settings) { m_overviewStrip->setColourMap(settings.map); });
    viewMenu->addSeparator();
    for (auto *dock : findChildren<QDockWidget *>())
        viewMenu->addAction(dock->toggleViewAction());

    // The Sparsifier, Optimizer and Gradcheck docks share a tab: these raise them, and go to
    // the Files tree, from the keyboard (a Tab cycle passes every panel's fields on its way).
    const auto raise = [](QDockWidget *dock) {
        dock->show();
        dock->raise();
        QWidget *content = dock->widget();
        if (qobject_cast<QAbstractItemView *>(content)) { // the Files tree
            content->setFocus(Qt::ShortcutFocusReason);
            return;
        }
        // The panel's first field takes the focus: the scroll area around it took it, a Tab short.
        if (auto *scroll = qobject_cast<QScrollArea *>(content))
            content = scroll->widget();
        QWidget *field = content->nextInFocusChain();
        while (field != content
               && !(content->isAncestorOf(field) && (field->focusPolicy() & Qt::TabFocus) && field->isVisibleTo(content)
                    && field->isEnabled()))
            field = field->nextInFocusChain();
        field->setFocus(Qt::ShortcutFocusReason);
    };
    auto *goToFiles = viewMenu->addAction(tr("Go to &Files"), this,
                                          [this, raise] { raise(findChild<QDockWidget *>(QStringLiteral("FilesDock"))); });
    goToFiles->setObjectName(QStringLiteral("action.view.files"));
    goToFiles->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));

    auto *sparsifyMenu = menuBar()->addMenu(tr("&Sparsify"));
    auto *apply = sparsifyMenu->addAction(tr("&Apply to Loaded Values"), this, [this] { m_document->applySparsifier(); });
    apply->setObjectName(QStringLiteral("action.sparsify.apply"));
    // The keypad's Enter too: it is the key many users reach for.
    apply->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
    auto *clearRecipe =
        sparsifyMenu->addAction(tr("&Clear Recipe"), this, [this] { m_document->changeSparsifier(std::nullopt); });
    clearRecipe->setObjectName(QStringLiteral("action.sparsify.clear"));
    sparsifyMenu->addSeparator();
    auto *showSparsifier = sparsifyMenu->addAction(
        tr("Show &Sparsifier"), this, [this, raise] { raise(findChild<QDockWidget *>(QStringLiteral("SparsifierDock"))); });
    showSparsifier->setObjectName(QStringLiteral("action.sparsify.show"));
    showSparsifier->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));

    auto *optimizeMenu = menuBar()->addMenu(tr("&Optimize"));
    auto *showOptimizer = optimizeMenu->addAction(tr("Show &Optimizer"), this, [this, raise] { raise(m_optimizerDock); });
    showOptimizer->setObjectName(QStringLiteral("action.optimize.show"));
    showOptimizer->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    auto *gradcheckMenu = menuBar()->addMenu(tr("&Gradcheck"));
    auto *showGradcheck = gradcheckMenu->addAction(tr("Show &Gradcheck"), this, [this, raise] { raise(m_gradcheckDock); });
    showGradcheck->setObjectName(QStringLiteral("action.gradcheck.show"));
    showGradcheck->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));

    auto *toolbar = addToolBar(tr("Toolbar"));
    toolbar->setObjectName(QStringLiteral("MainToolBar"));
    toolbar->setMovable(false);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    // The toolbar's Undo and Redo keep their short names, the command in their tooltips: the
    // menu's texts ("Undo Apply threshold T=0.5 to /x_alpha") moved Export 370 pixels as one worked.
    const auto shortAction = [this](QAction *full, const QString &name) {
        auto *action = new QAction(name, this);
        action->setObjectName(full->objectName() + QStringLiteral(".toolbar"));
        connect(action, &QAction::triggered, full, &QAction::trigger);
        const auto follow = [action, full] {
            action->setEnabled(full->isEnabled());
            action->setToolTip(full->text().remove(QLatin1Char('&')));
        };
        follow();
        connect(full, &QAction::changed, action, follow);
        return action;
    };
    for (auto *action : {open, shortAction(undo, tr("Undo")), shortAction(redo, tr("Redo")), exportAction})
        toolbar->addAction(action);
    auto *spacer = new QWidget;
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    toolbar->addWidget(spacer);
    toolbar->addWidget(new QLabel(tr("device ")));
    toolbar->addWidget(m_optimizer->deviceChooser());

    auto *helpMenu = menuBar()->addMenu(tr("&Help"));
    helpMenu->addAction(tr("&About"), this, [this] {
        QMessageBox::about(this, tr("About Sparsity Workbench"),
                           tr("Sparsity Workbench %1\nSparse and masked tensors, sparsifiers and optimizer semantics.")
                               .arg(QStringLiteral(SPARSITY_VERSION)));
    });
}

bool MainWindow::openFile(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    // A file opened again is listed again (it may have changed), which resets the tree: the
    // files it showed open and the element shown are restored (every file but the last
    // collapsed, and nothing stayed current).
    const bool reopened = m_model->fileIndex(absolute).isValid();
    QStringList expanded;
    for (int row = 0; row < m_model->fileCount(); ++row)
        if (const auto index = m_model->index(row, 0); m_tree->isExpanded(index))
            expanded << m_model->filePath(index);
    const auto shown = m_document->source();
    core::ValidationReport notes; // what listing the file left out
    if (!m_model->addFile(absolute, &notes)) {
        addIssue(issueFromMessage(Issue::Severity::Error, m_model->errorString(), {absolute}, {absolute, {}}));
        return false; // the status bar says why, as for every error
    }
    for (const auto &note : issuesFromReport(notes))
        addIssue(note);
    rememberRecent(QFileInfo(path).absoluteFilePath());
    for (const auto &file : std::as_const(expanded))
        m_tree->expand(m_model->fileIndex(file));
    m_tree->expand(m_model->fileIndex(absolute));
    if (reopened && !shown.elementPath.isEmpty()) {
        // The rows shown stay shown: a table's window went back to its first row.
        m_firstRowToShow = shown.firstRow;
        selectElement(shown.elementPath, shown.filePath);
        m_firstRowToShow = 0;
    }
    m_statusBar->showWholeMessage(tr("Opened %1").arg(path), 5000);
    return true;
}

bool MainWindow::closeFile(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    int row = -1;
    for (int r = 0; r < m_model->fileCount(); ++r)
        if (m_model->filePath(m_model->index(r, 0)) == absolute)
            row = r;
    if (row < 0)
        return false;
    // The recipes stay in the document; what closing drops is what was computed from the file.
    const QString label = m_model->fileLabel(absolute); // as the Files panel names it, before it goes
    if (const auto lost = m_document->unkeptWork(absolute);
        !lost.isEmpty() && !confirmDropping(tr("Closing %1 drops %2.").arg(label, joinedList(lost))))
        return false;
    if (m_jobs->isRunning()) {
        // The job's result would come back for a file no longer open.
        addIssue({Issue::Severity::Error,
                  {absolute, {}},
                  tr("wait for %1 to finish before closing the file").arg(m_jobs->title()),
                  {}});
        return false;
    }
    m_document->dropEdits(absolute);
    m_document->dropRunsOf(absolute);
    m_model->removeFile(row);
    if (m_document->source().filePath == absolute)
        loadRows(0); // the tree's current element now, if any
    m_statusBar->showWholeMessage(tr("Closed %1").arg(label), 5000);
    return true;
}

bool MainWindow::maybeSave(const QString &action)
{
    // A saved workspace keeps the recipes, not what was computed with them: with nothing else
    // unsaved, dropping that is still asked about (saving the workspace left it unasked).
    const auto lost = m_document->unkeptWork({}, m_model->filePaths());
    if (!isWindowModified())
        return lost.isEmpty() || confirmDropping(tr("%1 drops %2.").arg(action, joinedList(lost)));
    // What no workspace keeps is named here too: this is the only question asked.
    QMessageBox box(
        QMessageBox::Warning, tr("Unsaved changes"),
        lost.isEmpty()
            ? tr("%1 loses the edits made since the workspace was last saved.").arg(action)
            : tr("%1 loses the edits made since the workspace was last saved, and drops %2.").arg(action, joinedList(lost)),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("unsavedChanges"));
    // What saving keeps: a workspace holds the recipes and the datasets they are for, not the
    // pruned values (ui/workspace/workspace.h); Export writes those.
    box.setInformativeText(tr("Save the workspace first? It keeps your recipes and the datasets they are for, not the "
                              "pruned values: to keep those, use File ▸ Export Sparsified…"));
    box.button(QMessageBox::Save)->setText(tr("Save Workspace…"));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save: {
        QString path = m_workspacePath;
        if (path.isEmpty())
            path = QFileDialog::getSaveFileName(this, tr("Save workspace"), workspaceSaveTarget(), tr("Workspaces (*.json)"));
        return !path.isEmpty() && saveWorkspaceTo(path);
    }
    case QMessageBox::Discard:
        return true;
    default:
        return false;
    }
}

bool MainWindow::confirmDropping(const QString &what)
{
    QMessageBox box(QMessageBox::Warning, tr("Unsaved results"), what, QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("unkeptWork"));
    box.setInformativeText(tr("A workspace keeps recipes and settings, not pruned values or run results: to keep pruned "
                              "values, use File ▸ Export Sparsified…; a run can be made again."));
    box.setDefaultButton(QMessageBox::Cancel);
    return box.exec() == QMessageBox::Discard;
}

void MainWindow::markSaved()
{
    m_document->undoStack()->setClean();
    m_savedForms = workspaceJson(panelForms());
    updateModified();
}

void MainWindow::updateModified()
{
    setWindowModified(!m_document->undoStack()->isClean() || workspaceJson(panelForms()) != m_savedForms);
}

QString MainWindow::elementTitle(const QString &filePath, const QString &elementPath) const
{
    return QStringLiteral("%1  %2").arg(m_model->fileLabel(filePath), elementPath);
}

void MainWindow::updateTitle()
{
    const auto &source = m_document->source();
    QString shown;
    if (!source.filePath.isEmpty())
        shown = QStringLiteral("%1 %2 — ").arg(m_model->fileLabel(source.filePath), source.elementPath);
    else if (!m_workspacePath.isEmpty())
        shown = QFileInfo(m_workspacePath).fileName() + QStringLiteral(" — ");
    setWindowTitle(shown + tr("Sparsity Workbench") + QStringLiteral("[*]"));
}

bool MainWindow::selectElement(const QString &elementPath, const QString &filePath)
{
    auto fileIndex = m_model->index(m_model->fileCount() - 1, 0);
    if (!filePath.isEmpty()) {
        fileIndex = {};
        for (int row = 0; row < m_model->fileCount(); ++row)
            if (m_model->filePath(m_model->index(row, 0)) == QFileInfo(filePath).absoluteFilePath())
                fileIndex = m_model->index(row, 0);
        if (!fileIndex.isValid())
            return false;
    }
    for (int row = 0; row < m_model->rowCount(fileIndex); ++row) {
        const auto index = m_model->index(row, 0, fileIndex);
        if (QString::fromStdString(m_model->element(index)->path) == elementPath) {
            m_tree->setCurrentIndex(index);
            return true;
        }
    }
    return false;
}

void MainWindow::showSelected() { loadRows(m_firstRowToShow); }

void MainWindow::showAttributes()
{
    const auto index = m_tree->currentIndex();
    if (!index.isValid())
        m_attributes->clear();
    else if (const auto file = m_model->filePath(index); !m_attributes->showObject(file, m_model->objectPath(index)))
        addIssue(
            issueFromMessage(Issue::Severity::Error, m_attributes->errorString(), {file}, {file, m_model->objectPath(index)}));
}

void MainWindow::loadRows(std::int64_t firstRow)
{
    const auto index = m_tree->currentIndex();
    const auto *element = m_model->element(index);
    if (!element) {
        m_loader->forget();
        m_document->clear();
        hideOverview();
        m_preview->showMessage(tr("Select a tensor in the Files panel to preview it."));
        return;
    }
    const QString file = m_model->filePath(index);
    try {
        showLoad(m_loader->load(file, *element, firstRow));
    } catch (const core::Error &error) {
        showLoadFailure({file, QString::fromStdString(element->path)}, QString::fromStdString(error.what()));
    }
}

void MainWindow::moveRowWindow(std::int64_t firstRow)
{
    const auto index = m_tree->currentIndex();
    const auto *element = m_model->element(index);
    if (!element)
        return;
    m_loader->loadInBackground(m_model->filePath(index), *element, firstRow);
    m_statusBar->showWholeMessage(tr("Reading rows from %L1 of %2…").arg(firstRow).arg(QString::fromStdString(element->path)));
}

void MainWindow::showLoad(const TensorLoad &load)
{
    for (const auto &note : issuesFromReport(load.notes))
        addIssue(note);
    const auto &window = load.window;
    m_document->setTensor(elementTitle(load.element.file, load.element.path), load.tensor, window.totalRows,
                          TensorSource{load.element.file, load.element.path, window.firstRow});
    // The scroll bar walks a table too large to load whole, one window of rows at a time.
    const QSignalBlocker blocker(m_rowScroll);
    m_rowScroll->setVisible(window.windowed);
    m_rowScroll->setRange(0, static_cast<int>(window.windowed ? window.totalRows - window.rowsLoaded : 0));
    m_rowScroll->setPageStep(static_cast<int>(std::max<std::int64_t>(window.rowsLoaded, 1)));
    m_rowScroll->setSingleStep(static_cast<int>(std::max<std::int64_t>(window.rowsLoaded / 8, 1)));
    m_rowScroll->setValue(static_cast<int>(window.firstRow));
    if (window.windowed)
        showOverview(load.element, window);
    else
        hideOverview();
    if (m_statusBar->currentMessage().startsWith(tr("Reading rows")))
        m_statusBar->clearMessage();
}

void MainWindow::showLoadFailure(const ElementRef &element, const QString &error)
{
    m_document->clear();
    hideOverview();
    m_preview->showMessage(tr("Cannot preview %1").arg(element.path));
    addIssue(issueFromMessage(Issue::Severity::Error, error, {element.file}, element));
}

void MainWindow::showOverview(const ElementRef &element, const RowWindow &window)
{
    // Built once per table: moving the window keeps it, and so does looking at another tensor
    // and coming back (a build stopped half way by that starts over).
    const auto &overview = m_overviewBuilder->overview();
    const bool built = m_overviewBuilder->element() == element && overview.totalRows() == window.totalRows;
    if (!built || (!overview.complete() && !m_overviewBuilder->isBuilding()))
        m_overviewBuilder->start(element, window.totalRows, window.rowWidth);
    m_overviewStrip->setOverview(&m_overviewBuilder->overview());
    m_overviewStrip->setWindow(window.firstRow, window.rowsLoaded);
    m_overviewStrip->show();
}

void MainWindow::hideOverview()
{
    m_rowScroll->hide();
    m_overviewBuilder->stop();
    m_overviewStrip->setOverview(nullptr);
    m_overviewStrip->hide();
}

QList<ElementRef> MainWindow::elementsOfOpenFiles() const
{
    QList<ElementRef> elements;
    for (int row = 0; row < m_model->fileCount(); ++row) {
        const auto fileIndex = m_model->index(row, 0);
        for (int child = 0; child < m_model->rowCount(fileIndex); ++child)
            elements.push_back({m_model->filePath(fileIndex),
                                QString::fromStdString(m_model->element(m_model->index(child, 0, fileIndex))->path)});
    }
    return elements;
}

QString MainWindow::documentFile() const
{
    if (!m_document->source().filePath.isEmpty())
        return m_document->source().filePath;
    if (const auto current = m_tree->currentIndex(); current.isValid())
        return m_model->filePath(current);
    return m_model->fileCount() > 0 ? m_model->filePath(m_model->index(m_model->fileCount() - 1, 0)) : QString();
}

namespace {
const QString kLastWorkspaceFolder = QStringLiteral("workspace/lastFolder");
} // namespace

QString MainWindow::workspaceSaveTarget() const
{
    if (!m_workspacePath.isEmpty())
        return m_workspacePath;
    const auto name = QStringLiteral("workspace.json");
    if (const auto last = QSettings().value(kLastWorkspaceFolder).toString(); !last.isEmpty() && QFileInfo(last).isDir())
        return QDir(last).filePath(name);
    const QFileInfo folder(dialogFolder());
    return QDir(folder.isWritable() ? folder.absoluteFilePath() : QDir::homePath()).filePath(name);
}

QString MainWindow::dialogFolder() const
{
    if (const auto file = documentFile(); !file.isEmpty())
        return QFileInfo(file).absolutePath();
    const auto recent = loadRecentFiles();
    return recent.isEmpty() ? QDir::homePath() : QFileInfo(recent.first()).absolutePath();
}

std::vector<const core::ElementInfo *> MainWindow::documentFileElements() const
{
    std::vector<const core::ElementInfo *> elements;
    const QString file = documentFile();
    for (int row = 0; row < m_model->fileCount(); ++row) {
        const auto fileIndex = m_model->index(row, 0);
        if (m_model->filePath(fileIndex) != file)
            continue;
        for (int child = 0; child < m_model->rowCount(fileIndex); ++child)
            elements.push_back(m_model->element(m_model->index(child, 0, fileIndex)));
    }
    return elements;
}

QStringList MainWindow::elementsOfDocumentFile() const
{
    QStringList elements;
    for (const auto *element : documentFileElements())
        elements << QString::fromStdString(element->path);
    return elements;
}

void MainWindow::offerElements()
{
    std::vector<OfferedElement> offered;
    for (const auto *element : documentFileElements())
        offered.push_back({QString::fromStdString(element->path), element->shape});
    m_optimizer->setElements(offered);
    m_gradcheck->setElements(elementsOfOpenFiles(), m_document->source().filePath);
}

Workspace MainWindow::panelForms() const
{
    Workspace w;
    if (auto gradcheck = m_gradcheck->request(); !gradcheck.expression.isEmpty())
        w.gradcheck = std::move(gradcheck);
    w.optimizer = m_optimizer->choices();
    return w;
}

Workspace MainWindow::workspace() const
{
    Workspace w = panelForms();
    for (int row = 0; row < m_model->fileCount(); ++row)
        w.files << m_model->filePath(m_model->index(row, 0));
    w.currentFile = m_document->source().filePath;
    w.currentElement = m_document->source().elementPath;
    w.slice = m_document->slice();
    w.selection = m_document->selection();
    w.sparsifier = m_document->sharedSparsifier();
    w.datasetSparsifiers = m_document->datasetSparsifiers();
    w.exportSettings = m_document->exportSettings();
    w.windowGeometry = saveGeometry();
    w.windowState = saveState();
    return w;
}

bool MainWindow::saveWorkspaceTo(const QString &path)
{
    try {
        saveWorkspace(workspace(), path);
    } catch (const core::Error &error) {
        addIssue(issueFromMessage(Issue::Severity::Error, QString::fromStdString(error.what()), {path}, {path, {}}));
        return false;
    }
    m_workspacePath = path;
    QSettings().setValue(kLastWorkspaceFolder, QFileInfo(path).absolutePath());
    markSaved();
    updateTitle();
    m_statusBar->showWholeMessage(tr("Saved workspace %1").arg(path), 8000);
    return true;
}

bool MainWindow::openWorkspace(const QString &path)
{
    if (m_jobs->isRunning()) {
        addIssue({Issue::Severity::Error,
                  {path, {}},
                  tr("wait for %1 to finish before opening a workspace").arg(m_jobs->title()),
                  {}});
        return false;
    }
    if (!maybeSave(tr("Opening %1").arg(path)))
        return false;
    Workspace w;
    try {
        w = loadWorkspace(path);
    } catch (const core::Error &error) {
        addIssue(issueFromMessage(Issue::Severity::Error, QString::fromStdString(error.what()), {path}, {path, {}}));
        return false;
    }
    // The workspace starts from the files as they are: the values pruned since it was saved go
    // (a workspace keeps recipes, not values), and the tensor shown is read again without them.
    if (m_document->hasEdits()) {
        m_document->dropEdits();
        if (m_tree->currentIndex().isValid())
            showSelected();
    }
    bool complete = true;
    for (const auto &file : w.files)
        complete = openFile(file) && complete;
    if (!w.currentFile.isEmpty() && !selectElement(w.currentElement, w.currentFile)) {
        addIssue({Issue::Severity::Error,
                  {w.currentFile, w.currentElement},
                  tr("is not there any more (shown in workspace %1)").arg(path),
                  {}});
        complete = false;
    }
    for (std::size_t dim = 0; dim < w.slice.size(); ++dim)
        m_document->setSlice(dim, w.slice[dim]);
    m_document->setSelection(w.selection);
    m_document->changeAllSparsifiers(w.sparsifier, w.datasetSparsifiers);
    // A workspace saved without a Gradcheck form had an empty one: the one typed since goes.
    m_gradcheck->setRequest(w.gradcheck.value_or(GradcheckPanelRequest{}));
    m_document->changeExportSettings(w.exportSettings);
    if (w.optimizer)
        m_optimizer->setRequest(*w.optimizer);
    if (!w.windowGeometry.isEmpty())
        restoreGeometry(w.windowGeometry);
    if (!w.windowState.isEmpty())
        restoreState(w.windowState);
    m_workspacePath = path;
    // As saved: nothing to ask about yet, and nothing to undo (an Undo would take the
    // workspace's own recipes back).
    m_document->undoStack()->clear();
    markSaved();
    updateTitle();
    m_statusBar->showWholeMessage(tr("Opened workspace %1").arg(path), 8000);
    return complete;
}

QMap<QString, QString> MainWindow::recipeMisfits() const
{
    QMap<QString, QString> misfits;
    for (const auto *element : documentFileElements()) {
        const auto path = QString::fromStdString(element->path);
        if (const auto why = recipeMisfit(m_document->sparsifierFor(path), *element); !why.isEmpty())
            misfits[path] = why;
    }
    return misfits;
}

QString MainWindow::batchProblem() const
{
    if (documentFile().isEmpty())
        return tr("open a file first");
    const auto misfits = recipeMisfits();
    auto datasets = m_document->exportSettings().datasets;
    if (datasets.isEmpty())
        datasets = elementsOfDocumentFile();
    QStringList problems;
    for (const auto &dataset : datasets)
        if (misfits.contains(dataset))
            problems << tr("%1: the recipe does not fit it: %2").arg(dataset, misfits[dataset]);
    if (problems.isEmpty())
        return {};
    return tr("%1 (untick it in File > Export Sparsified's list, or give it its own recipe)")
        .arg(problems.join(QStringLiteral("; ")));
}

bool MainWindow::saveBatch(const QString &path, const QString &outputPattern)
{
    const QString input = documentFile();
    if (const auto problem = batchProblem(); !problem.isEmpty()) {
        addIssue({Issue::Severity::Error, {input, {}}, tr("Save as batch: %1").arg(problem), {}});
        return false;
    }
    std::string json;
    try {
        json = core::batchJson(documentRecipe(*m_document, input, outputPattern));
    } catch (const core::Error &error) {
        auto issue = issueFromMessage(Issue::Severity::Error, QString::fromStdString(error.what()), {input}, {input, {}});
        issue.text = tr("Save as batch: %1").arg(issue.text);
        addIssue(issue);
        return false;
    }
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(json.data(), static_cast<qint64>(json.size())) < 0) {
        addIssue({Issue::Severity::Error, {path, {}}, tr("cannot write the batch file: %1").arg(file.errorString()), {}});
        return false;
    }
    m_statusBar->showWholeMessage(tr("Saved batch %1 (replay: sparsity run %1)").arg(path), 8000);
    return true;
}

void MainWindow::exportWithDialog()
{
    const QString input = documentFile();
    if (input.isEmpty()) {
        addIssue({Issue::Severity::Error, {}, tr("Export: open a file first"), {}});
        return;
    }
    ExportDialog dialog(elementsOfDocumentFile(), recipeMisfits(), *m_document, suggestedExportPath(input), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    rememberExportPath(input, dialog.outputPath());
    m_document->changeExportSettings(dialog.settings());
    m_documentJobs->startExport(input, dialog.outputPath());
}

void MainWindow::saveBatchWithDialog()
{
    if (const auto problem = batchProblem(); !problem.isEmpty()) {
        QMessageBox::warning(this, tr("Save as batch"), tr("The batch would fail: %1").arg(problem));
        return;
    }
    const auto path =
        QFileDialog::getSaveFileName(this, tr("Save as batch"), QStringLiteral("batch.json"), tr("Batch files (*.json)"));
    if (path.isEmpty())
        return;
    bool ok = false;
    const auto pattern =
        QInputDialog::getText(this, tr("Save as batch"), tr("Output path ({stem}, {name}; relative to the batch file)"),
                              QLineEdit::Normal, QStringLiteral("out/{stem}.sparsified.h5"), &ok);
    if (ok)
        saveBatch(path, pattern);
}

void MainWindow::addIssue(const Issue &issue)
{
    // Seen even with the Issues dock hidden or tabbed away: its title counts, and the status
    // bar says the latest error, also one counted again on its row. Notes do not take the
    // status bar: they are what core noticed about data that loaded all the same.
    m_issues->add(issue);
    if (issue.severity == Issue::Severity::Error)
        m_statusBar->showWholeMessage(tr("Error: %1").arg(issue.summary()), 20000);
}

void MainWindow::updateIssuesTitle()
{
    const QString counts = m_issues->countsText();
    m_issuesDock->setWindowTitle(counts.isEmpty() ? tr("Issues") : tr("Issues (%1)").arg(counts));
}

void MainWindow::jumpTo(const ElementRef &location)
{
    const QString file = location.file.isEmpty() ? m_document->source().filePath : location.file;
    if (file.isEmpty())
        return;
    if (!location.path.isEmpty() && selectElement(location.path, file))
        return;
    const auto fileIndex = m_model->fileIndex(QFileInfo(file).absoluteFilePath());
    if (!fileIndex.isValid()) {
        m_statusBar->showWholeMessage(tr("%1 is not open in the Files panel").arg(QFileInfo(file).fileName()), 8000);
        return;
    }
    // The file's row is selected, not made current: that would clear the preview.
    m_tree->expand(fileIndex);
    m_tree->scrollTo(fileIndex);
    m_tree->selectionModel()->select(fileIndex, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (!location.path.isEmpty())
        m_statusBar->showWholeMessage(tr("%1 is not listed in %2").arg(location.path, QFileInfo(file).fileName()), 8000);
}

void MainWindow::rememberRecent(const QString &path)
{
    rememberRecentFile(path, kMaxRecent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const auto recent = loadRecentFiles();
    const auto labels = recentFileLabels(recent);
    for (qsizetype i = 0; i < recent.size(); ++i) {
        const QString path = recent[i];
        auto label = labels[i];
        // A file moved or deleted since is shown as such, not offered: choosing it only failed again.
        const bool found = QFileInfo::exists(path);
        if (!found)
            label = tr("%1 (not found)").arg(label);
        auto *action = m_recentMenu->addAction(label.replace(QLatin1Char('&'), QStringLiteral("&&")), this,
                                               [this, path] { openFile(path); });
        action->setToolTip(path);
        action->setEnabled(found);
    }
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!maybeSave(tr("Quitting"))) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    // Files only: a web link was taken, then dropped with nothing said.
    const auto urls = event->mimeData()->urls();
    if (std::any_of(urls.begin(), urls.end(), [](const QUrl &url) { return url.isLocalFile(); }))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    QStringList paths;
    for (const auto &url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    // Opened once the drop is over: opening a workspace may ask whether to drop the work open
    // (a modal dialog), and a dialog inside the drop handler holds the application the files
    // were dragged from until it is answered. As on the command line, a workspace is opened as
    // one, not read as an HDF5 file.
    QTimer::singleShot(0, this, [this, paths] {
        for (const auto &path : paths)
            isWorkspacePath(path) ? openWorkspace(path) : openFile(path);
    });
}

} // namespace sparsity::ui
