#include "ui/mainwindow/main_window.h"

#include "core/device/device.h"
#include "core/io/h5_reader.h"
#include "core/util/errors.h"
#include "ui/document/tensor_document.h"
#include "ui/models/h5_browser_model.h"
#include "ui/views/histogram_view.h"
#include "ui/views/tensor_preview.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTreeView>

namespace sparsity::ui {
namespace {

constexpr int kMaxRecent = 8;
constexpr std::int64_t kPreviewRows = 512;

} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Sparsity Workbench"));
    setAcceptDrops(true);

    m_document = new TensorDocument(this);
    m_model = new H5BrowserModel(this);
    m_tree = new QTreeView;
    m_tree->setModel(m_model);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this] { showSelected(); });

    auto *filesDock = new QDockWidget(tr("Files"), this);
    filesDock->setObjectName(QStringLiteral("FilesDock"));
    filesDock->setWidget(m_tree);
    addDockWidget(Qt::LeftDockWidgetArea, filesDock);

    m_issues = new QListWidget;
    auto *issuesDock = new QDockWidget(tr("Issues"), this);
    issuesDock->setObjectName(QStringLiteral("IssuesDock"));
    issuesDock->setWidget(m_issues);
    addDockWidget(Qt::BottomDockWidgetArea, issuesDock);

    m_histogram = new HistogramView(m_document);
    auto *histogramDock = new QDockWidget(tr("Histogram"), this);
    histogramDock->setObjectName(QStringLiteral("HistogramDock"));
    histogramDock->setWidget(m_histogram);
    addDockWidget(Qt::LeftDockWidgetArea, histogramDock);

    m_preview = new TensorPreview(m_document);
    setCentralWidget(m_preview);

    createActions();
    const auto &device = core::deviceStatus();
    statusBar()->addPermanentWidget(new QLabel(
        device.cudaDevices > 0 ? tr("Device: CUDA (%1)").arg(QString::fromStdString(device.cudaDescription))
                               : tr("Device: CPU")));

    resize(1200, 720);
    resizeDocks({filesDock}, {460}, Qt::Horizontal);
    resizeDocks({filesDock, histogramDock}, {300, 300}, Qt::Vertical);
    resizeDocks({issuesDock}, {110}, Qt::Vertical);
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    auto *fileMenu = menuBar()->addMenu(tr("&File"));
    auto *open = fileMenu->addAction(tr("&Open…"), this, [this] {
        const auto path = QFileDialog::getOpenFileName(this, tr("Open HDF5 file"), {},
                                                       tr("HDF5 files (*.h5 *.hdf5 *.h5ad);;All files (*)"));
        if (!path.isEmpty())
            openFile(path);
    });
    open->setObjectName(QStringLiteral("action.file.open"));
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = fileMenu->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    fileMenu->addSeparator();
    auto *quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    auto *editMenu = menuBar()->addMenu(tr("&Edit"));
    auto *undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(QStringLiteral("action.edit.undo"));
    undo->setShortcut(QKeySequence::Undo);
    auto *redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(QStringLiteral("action.edit.redo"));
    redo->setShortcut(QKeySequence::Redo);
    editMenu->addAction(undo);
    editMenu->addAction(redo);
    auto *clearThreshold = editMenu->addAction(tr("&Clear Threshold Preview"), this,
                                               [this] { m_document->changeThreshold(std::nullopt); });
    clearThreshold->setObjectName(QStringLiteral("action.edit.clear_threshold"));

    auto *viewMenu = menuBar()->addMenu(tr("&View"));
    for (auto *dock : findChildren<QDockWidget *>())
        viewMenu->addAction(dock->toggleViewAction());

    auto *helpMenu = menuBar()->addMenu(tr("&Help"));
    helpMenu->addAction(tr("&About"), this, [this] {
        QMessageBox::about(this, tr("About Sparsity Workbench"),
                           tr("Sparsity Workbench %1\nSparse and masked tensors, sparsifiers and optimizer semantics.")
                               .arg(QStringLiteral(SPARSITY_VERSION)));
    });
}

bool MainWindow::openFile(const QString &path)
{
    if (!m_model->addFile(path)) {
        addIssue(m_model->errorString());
        statusBar()->showMessage(tr("Could not open %1").arg(QFileInfo(path).fileName()), 5000);
        return false;
    }
    rememberRecent(QFileInfo(path).absoluteFilePath());
    const auto fileIndex = m_model->index(m_model->fileCount() - 1, 0);
    m_tree->expand(fileIndex);
    statusBar()->showMessage(tr("Opened %1").arg(path), 5000);
    return true;
}

bool MainWindow::selectElement(const QString &elementPath)
{
    const auto fileIndex = m_model->index(m_model->fileCount() - 1, 0);
    for (int row = 0; row < m_model->rowCount(fileIndex); ++row) {
        const auto index = m_model->index(row, 0, fileIndex);
        if (QString::fromStdString(m_model->element(index)->path) == elementPath) {
            m_tree->setCurrentIndex(index);
            return true;
        }
    }
    return false;
}

void MainWindow::showSelected()
{
    const auto index = m_tree->currentIndex();
    const auto *element = m_model->element(index);
    if (!element) {
        m_document->clear();
        m_preview->showMessage(tr("Select a tensor in the Files panel to preview it."));
        return;
    }
    const auto title = QStringLiteral("%1  %2").arg(QFileInfo(m_model->filePath(index)).fileName(),
                                                    QString::fromStdString(element->path));
    try {
        const auto file = core::H5File::openRead(m_model->filePath(index).toStdString());
        const bool rowRange = !element->masked && (element->layout == core::Layout::Dense || element->layout == core::Layout::Csr)
                              && !element->shape.empty() && element->shape[0] > kPreviewRows;
        std::optional<core::RowRange> rows;
        if (rowRange)
            rows = core::RowRange{0, kPreviewRows};
        const auto tensor = core::readTensor(file, element->path, nullptr, rows);
        m_document->setTensor(title, tensor, element->shape.empty() ? 1 : element->shape[0]);
    } catch (const core::Error &error) {
        m_document->clear();
        m_preview->showMessage(tr("Cannot preview %1").arg(QString::fromStdString(element->path)));
        addIssue(QString::fromStdString(error.what()));
    }
}

void MainWindow::addIssue(const QString &text)
{
    m_issues->addItem(text);
    m_issues->scrollToBottom();
}

void MainWindow::rememberRecent(const QString &path)
{
    QSettings settings;
    auto recent = settings.value(QStringLiteral("recentFiles")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(QStringLiteral("recentFiles"), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const auto recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    for (const auto &path : recent)
        m_recentMenu->addAction(QFileInfo(path).fileName(), this, [this, path] { openFile(path); })->setToolTip(path);
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    for (const auto &url : event->mimeData()->urls())
        if (url.isLocalFile())
            openFile(url.toLocalFile());
}

} // namespace sparsity::ui
