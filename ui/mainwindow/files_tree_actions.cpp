#include "ui/mainwindow/files_tree_actions.h"

#include "ui/models/h5_browser_model.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QMenu>
#include <QTreeView>

namespace sparsity::ui {

FilesTreeActions::FilesTreeActions(QTreeView *tree, H5BrowserModel *model)
    : QObject(tree), m_tree(tree), m_model(model), m_preview(new QAction(tr("&Preview"), tree)),
      m_copyPath(new QAction(tr("&Copy Path"), tree)), m_close(new QAction(tr("C&lose File"), tree)),
      m_attributes(new QAction(tr("Show &Attributes"), tree))
{
    m_preview->setObjectName(QStringLiteral("action.files.preview"));
    m_copyPath->setObjectName(QStringLiteral("action.files.copy_path"));
    m_close->setObjectName(QStringLiteral("action.files.close"));
    m_attributes->setObjectName(QStringLiteral("action.files.attributes"));
    m_preview->setToolTip(tr("Show the tensor in the heatmap (a file: its first tensor)"));
    m_copyPath->setToolTip(tr("Copy file:/path, as the command line takes it"));
    connect(m_preview, &QAction::triggered, this, [this] {
        if (const auto row = currentRow(); row.isValid())
            emit previewRequested(row);
    });
    connect(m_copyPath, &QAction::triggered, this, [this] {
        if (const auto row = currentRow(); row.isValid())
            QGuiApplication::clipboard()->setText(pathText(row));
    });
    connect(m_close, &QAction::triggered, this, [this] {
        if (const auto row = currentRow(); row.isValid())
            emit closeRequested(m_model->filePath(row));
    });
    connect(m_attributes, &QAction::triggered, this, [this] {
        if (const auto row = currentRow(); row.isValid())
            emit attributesRequested(row);
    });
    tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(tree, &QWidget::customContextMenuRequested, this, &FilesTreeActions::showMenu);
    connect(tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &FilesTreeActions::updateEnabled);
    // Closing the file of the current row leaves no current row, and says so by no signal of
    // the selection model's: the model's own signals tell.
    connect(model, &QAbstractItemModel::modelReset, this, &FilesTreeActions::updateEnabled);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &FilesTreeActions::updateEnabled);
    updateEnabled();
}

QString FilesTreeActions::pathText(const QModelIndex &index) const
{
    if (!m_model->element(index))
        return m_model->filePath(index);
    return QStringLiteral("%1:%2").arg(m_model->filePath(index), m_model->objectPath(index));
}

QModelIndex FilesTreeActions::currentRow() const
{
    const auto current = m_tree->currentIndex();
    return current.isValid() ? current.siblingAtColumn(0) : QModelIndex();
}

void FilesTreeActions::updateEnabled()
{
    const auto row = currentRow();
    for (auto *action : {m_copyPath, m_close, m_attributes})
        action->setEnabled(row.isValid());
    // A file previews its first tensor; one with none has nothing to preview.
    m_preview->setEnabled(row.isValid() && (m_model->element(row) || m_model->rowCount(row) > 0));
}

void FilesTreeActions::showMenu(const QPoint &position)
{
    const auto clicked = m_tree->indexAt(position);
    if (!clicked.isValid())
        return; // below the last row: there is nothing to act on
    // The actions act on the current row; a right click has made it current already where
    // the platform sends the menu request after the press.
    if (clicked.siblingAtColumn(0) != currentRow())
        m_tree->setCurrentIndex(clicked);
    updateEnabled();
    QMenu menu(m_tree);
    menu.addAction(m_preview);
    menu.addAction(m_attributes);
    menu.addAction(m_copyPath);
    menu.addSeparator();
    menu.addAction(m_close);
    menu.exec(m_tree->viewport()->mapToGlobal(position));
}

} // namespace sparsity::ui
