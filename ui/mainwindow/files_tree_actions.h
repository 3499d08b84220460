#pragma once
// FilesTreeActions: the Files tree's context menu — Preview, Copy Path, Close File, Show
// Attributes — on the tree's current row (a right click makes the row under the mouse
// current). Copy Path is done here ("file:/element", or the file's path on a file row); the
// others are asked of the main window by signal, with the row's column-0 index.
#include <QObject>

class QAction;
class QModelIndex;
class QPoint;
class QTreeView;

namespace sparsity::ui {

class H5BrowserModel;

class FilesTreeActions : public QObject {
    Q_OBJECT

public:
    // The actions are the tree's children, found by object name: action.files.preview,
    // action.files.copy_path, action.files.close, action.files.attributes.
    FilesTreeActions(QTreeView *tree, H5BrowserModel *model);

    // What Copy Path puts on the clipboard for `index`.
    QString pathText(const QModelIndex &index) const;

signals:
    void previewRequested(const QModelIndex &index);
    void closeRequested(const QString &filePath);
    void attributesRequested(const QModelIndex &index);

private:
    QModelIndex currentRow() const;
    void updateEnabled();
    void showMenu(const QPoint &position);

    QTreeView *m_tree;
    H5BrowserModel *m_model;
    QAction *m_preview, *m_copyPath, *m_close, *m_attributes;
};

} // namespace sparsity::ui
