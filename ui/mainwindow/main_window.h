#pragma once
// MainWindow: composes the docks (Files, Issues, Histogram, Sparsifier, Optimizer, Gradcheck,
// Inspector, Attributes) around the central heatmap with its row scroll bar and overview strip, all on one
// TensorDocument (the previewed tensor, the recipes and the panels' runs, with undo). Views are
// linked only through the document; long work runs in the JobRunner (DocumentJobs); errors, and
// the notes core makes while reading data, go to the Issues dock, never a crash.
#include <QMainWindow>
#include <QMap>
#include <vector>

class QDockWidget;
class QMenu;
class QScrollBar;
class QTreeView;

namespace sparsity::core {
struct ElementInfo;
}

namespace sparsity::ui {

struct ElementRef;
class AttributesPanel;
class ElidingStatusBar;
struct Issue;
class H5BrowserModel;
class HistogramView;
class InspectorPanel;
class IssuesModel;
class OverviewBuilder;
class OverviewStrip;
class OptimizerPanel;
class GradcheckPanel;
struct Workspace;
class DocumentJobs;
class JobRunner;
class SparsifierPanel;
class TensorDocument;
class TensorLoader;
struct TensorLoad;
struct RowWindow;
class TensorPreview;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Opens an HDF5 file into the browser; on failure the error is listed in the Issues dock.
    bool openFile(const QString &path);
    // Selects the element `path` of `filePath` (default: the most recently opened file) and
    // previews it.
    bool selectElement(const QString &elementPath, const QString &filePath = {});
    // Closes an open file (File > Close); with applied edits in it, asks first (Save /
    // Discard / Cancel). False when it is not open, the user cancelled or a job runs.
    bool closeFile(const QString &path);

    // The workspace as it stands, and saving/opening WORKSPACE.json; failures go to the
    // Issues dock (opening a broken workspace changes nothing).
    Workspace workspace() const;
    bool saveWorkspaceTo(const QString &path);
    bool openWorkspace(const QString &path);

    // Writes the document's recipe as BATCH.json (Save as batch); `outputPattern` is relative
    // to the batch file's folder. False with the reason in the Issues dock.
    bool saveBatch(const QString &path, const QString &outputPattern);

    H5BrowserModel *browserModel() const { return m_model; }
    SparsifierPanel *sparsifierPanel() const { return m_sparsifier; }
    InspectorPanel *inspector() const { return m_inspector; }
    AttributesPanel *attributesPanel() const { return m_attributes; }
    OptimizerPanel *optimizerPanel() const { return m_optimizer; }
    GradcheckPanel *gradcheckPanel() const { return m_gradcheck; }
    JobRunner *jobs() const { return m_jobs; }
    // Export, optimizer runs and gradchecks; their problems go to the Issues dock.
    DocumentJobs *documentJobs() const { return m_documentJobs; }
    TensorPreview *preview() const { return m_preview; }
    QScrollBar *rowScrollBar() const { return m_rowScroll; }
    // The whole of a table too large to load, beside the heatmap, and what builds it.
    OverviewStrip *overviewStrip() const { return m_overviewStrip; }
    OverviewBuilder *overviewBuilder() const { return m_overviewBuilder; }
    TensorLoader *loader() const { return m_loader; }
    HistogramView *histogram() const { return m_histogram; }
    TensorDocument *document() const { return m_document; }
    IssuesModel *issuesModel() const { return m_issues; }

    // Where the Open dialogs start: documentFile()'s folder, else the last opened file's, else
    // home (they started in the working directory, wherever the app was launched from).
    QString dialogFolder() const;
    // Where Save Workspace starts: the workspace this window opened or saved; else
    // workspace.json in the folder a workspace was last saved to (kept across sessions); else in
    // dialogFolder() when it can be written, else in home (the bundled sample's folder is the
    // install's, which a user cannot write; saving there failed).
    QString workspaceSaveTarget() const;

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createActions();
    QDockWidget *addDock(const QString &title, const QString &objectName, QWidget *widget, Qt::DockWidgetArea area, bool scrolls);
    void exportWithDialog();
    void saveBatchWithDialog();
    // Datasets of the document's file the recipe in effect for them cannot run on, with
    // why; and why the batch (Save as batch) would fail as set (empty: it would not).
    QMap<QString, QString> recipeMisfits() const;
    QString batchProblem() const;
    QList<ElementRef> elementsOfOpenFiles() const;
    // The file Export, Save as Batch and the Optimizer work on: the shown tensor's, else the
    // one whose row the Files tree has current, else the last opened; empty: none open.
    QString documentFile() const;
    // The elements of documentFile(), as the Files model lists them.
    std::vector<const core::ElementInfo *> documentFileElements() const;
    QStringList elementsOfDocumentFile() const;
    void offerElements(); // to the Optimizer (the shown tensor's file) and Gradcheck (every file) panels
    // Loads the tensor the Files tree made current: from its first row, or from
    // m_firstRowToShow (a file opened again keeps a table's rows shown).
    void showSelected();
    // The Attributes dock follows the Files tree's current row.
    void showAttributes();
    // Loads the selected tensor now (a table too large to load whole: its rows from firstRow on).
    void loadRows(std::int64_t firstRow);
    // Moves the window of rows of the table shown, read in the background (TensorLoader).
    void moveRowWindow(std::int64_t firstRow);
    void showLoad(const TensorLoad &load);
    void showLoadFailure(const ElementRef &element, const QString &error);
    // The overview strip of a table loaded a window of rows at a time (built in the background).
    void showOverview(const ElementRef &element, const RowWindow &window);
    void hideOverview();
    // Lists `issue` in the Issues dock; an Error is also said in the status bar.
    void addIssue(const Issue &issue);
    void updateIssuesTitle(); // "Issues (2 errors, 1 warning)"
    // Selects and previews the element an issue names (its file's row, for a file alone).
    void jumpTo(const ElementRef &location);
    // Before `action` ("Quitting", "Opening w.json"): with unsaved changes, asks whether to save
    // the workspace first; with none, still asks before dropping what a workspace does not keep
    // (applied edits, runs). True to go on (saved or discarded), false when cancelled.
    bool maybeSave(const QString &action);
    // Asks before dropping results no workspace keeps (`what`: which); true on Discard.
    bool confirmDropping(const QString &what);
    void updateTitle(); // the shown tensor's file and path, and the unsaved mark
    // The heatmap's title for an element: its file's label among those open ("sample.h5 — ~/runs") and its path.
    QString elementTitle(const QString &filePath, const QString &elementPath) const;
    // The unsaved mark: an edit since the workspace was last saved or opened (the undo
    // history's clean state), or a panel form that differs from the one saved then.
    void updateModified();
    void markSaved(); // the workspace as it stands is the one saved or opened
    // The part of workspace() outside the document's undo history: the Optimizer's and the
    // Gradcheck panel's forms (what updateModified compares with the one saved).
    Workspace panelForms() const;
    void rememberRecent(const QString &path);
    void rebuildRecentMenu();

    ElidingStatusBar *m_statusBar = nullptr;
    TensorDocument *m_document = nullptr;
    H5BrowserModel *m_model = nullptr;
    QTreeView *m_tree = nullptr;
    QScrollBar *m_rowScroll = nullptr;
    OverviewStrip *m_overviewStrip = nullptr;
    OverviewBuilder *m_overviewBuilder = nullptr;
    TensorLoader *m_loader = nullptr;
    TensorPreview *m_preview = nullptr;
    HistogramView *m_histogram = nullptr;
    SparsifierPanel *m_sparsifier = nullptr;
    InspectorPanel *m_inspector = nullptr;
    AttributesPanel *m_attributes = nullptr;
    OptimizerPanel *m_optimizer = nullptr;
    GradcheckPanel *m_gradcheck = nullptr;
    JobRunner *m_jobs = nullptr;
    DocumentJobs *m_documentJobs = nullptr;
    IssuesModel *m_issues = nullptr;
    QMenu *m_recentMenu = nullptr;
    std::string m_savedForms;          // the panel forms' JSON when the workspace was last saved or opened (or at start)
    QString m_workspacePath;           // the workspace last opened or saved (Save in maybeSave)
    std::int64_t m_firstRowToShow = 0; // the next showSelected()'s first row (openFile sets it)
    QDockWidget *m_issuesDock = nullptr;
    QDockWidget *m_optimizerDock = nullptr;
    QDockWidget *m_gradcheckDock = nullptr;
};

} // namespace sparsity::ui
