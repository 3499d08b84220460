#pragma once
// MainWindow: composes the Files browser, the tensor preview, the histogram and the Issues
// list around one TensorDocument (the previewed tensor and its threshold preview, with undo).
// Views are linked only through the document; errors go to the Issues dock, never a crash.
#include <QMainWindow>

class QListWidget;
class QMenu;
class QTreeView;

namespace sparsity::ui {

class H5BrowserModel;
class HistogramView;
class TensorDocument;
class TensorPreview;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Opens an HDF5 file into the browser; on failure the error is listed in the Issues dock.
    bool openFile(const QString &path);
    // Selects the element `path` of the most recently opened file and previews it.
    bool selectElement(const QString &elementPath);

    H5BrowserModel *browserModel() const { return m_model; }
    TensorPreview *preview() const { return m_preview; }
    HistogramView *histogram() const { return m_histogram; }
    TensorDocument *document() const { return m_document; }
    QListWidget *issuesList() const { return m_issues; }

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createActions();
    void showSelected();
    void addIssue(const QString &text);
    void rememberRecent(const QString &path);
    void rebuildRecentMenu();

    TensorDocument *m_document = nullptr;
    H5BrowserModel *m_model = nullptr;
    QTreeView *m_tree = nullptr;
    TensorPreview *m_preview = nullptr;
    HistogramView *m_histogram = nullptr;
    QListWidget *m_issues = nullptr;
    QMenu *m_recentMenu = nullptr;
};

} // namespace sparsity::ui
