#include "ui/mainwindow/files_name_column.h"

#include <QHeaderView>
#include <QTimer>
#include <QTreeView>

namespace sparsity::ui {
namespace {

// The width a row's name needs: its text and decoration as the delegate sizes it, and the
// indentation of its depth.
int nameWidth(const QTreeView *tree, const QModelIndex &index, int depth)
{
    QStyleOptionViewItem option;
    option.initFrom(tree);
    option.font = tree->font();
    option.decorationSize = tree->iconSize().isValid() ? tree->iconSize() : QSize(16, 16);
    option.features |= QStyleOptionViewItem::HasDisplay;
    return tree->itemDelegateForIndex(index)->sizeHint(option, index).width() + tree->indentation() * (depth + 1);
}

void fitNameColumn(QTreeView *tree)
{
    const auto *model = tree->model();
    if (!model)
        return;
    int elements = 0, files = 0;
    for (int row = 0; row < model->rowCount(); ++row) {
        const auto file = model->index(row, 0);
        files = std::max(files, nameWidth(tree, file, 0));
        if (!tree->isExpanded(file))
            continue;
        for (int child = 0; child < model->rowCount(file); ++child)
            elements = std::max(elements, nameWidth(tree, model->index(child, 0, file), 1));
    }
    tree->header()->resizeSection(0, std::max({elements, std::min(files, kFileNameRoom), tree->header()->minimumSectionSize()}));
}

} // namespace

void keepNameColumnFitted(QTreeView *tree)
{
    tree->header()->setSectionResizeMode(0, QHeaderView::Interactive);
    // Once the current event is handled: rows inserted are laid out (and expanded) by then.
    auto *pending = new QTimer(tree);
    pending->setSingleShot(true);
    pending->setInterval(0);
    QObject::connect(pending, &QTimer::timeout, tree, [tree] { fitNameColumn(tree); });
    const auto refit = [pending] { pending->start(); };
    auto *model = tree->model();
    QObject::connect(model, &QAbstractItemModel::rowsInserted, pending, refit);
    QObject::connect(model, &QAbstractItemModel::rowsRemoved, pending, refit);
    QObject::connect(model, &QAbstractItemModel::modelReset, pending, refit);
    QObject::connect(model, &QAbstractItemModel::dataChanged, pending, refit);
    QObject::connect(model, &QAbstractItemModel::layoutChanged, pending, refit);
    QObject::connect(tree, &QTreeView::expanded, pending, refit);
    QObject::connect(tree, &QTreeView::collapsed, pending, refit);
    fitNameColumn(tree);
}

} // namespace sparsity::ui
