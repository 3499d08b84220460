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

// Whether the width is the fit's: set while fitting, cleared when the user drags the edge.
struct NameColumnFit : QObject {
    using QObject::QObject;
    bool byUser = false; // the user sized the column: refits leave it
    bool fitting = false;
};

void fitNameColumn(QTreeView *tree, NameColumnFit *fit)
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
    fit->fitting = true;
    tree->header()->resizeSection(0, std::max({elements, std::min(files, kFileNameRoom), tree->header()->minimumSectionSize()}));
    fit->fitting = false;
}

} // namespace

void keepNameColumnFitted(QTreeView *tree)
{
    auto *header = tree->header();
    header->setSectionResizeMode(0, QHeaderView::Interactive);
    auto *fit = new NameColumnFit(tree);
    // Once the current event is handled: rows inserted are laid out (and expanded) by then.
    auto *pending = new QTimer(tree);
    pending->setSingleShot(true);
    pending->setInterval(0);
    QObject::connect(pending, &QTimer::timeout, tree, [tree, fit] {
        if (!fit->byUser)
            fitNameColumn(tree, fit);
    });
    // A resize that is not the fit's is the user's (a drag of the edge).
    QObject::connect(header, &QHeaderView::sectionResized, fit, [fit](int section) {
        if (section == 0 && !fit->fitting)
            fit->byUser = true;
    });
    // QTreeView answers a double click on the edge by sizing the column to every row (a long
    // file name's whole width); the fit replaces that, once the click is handled.
    QObject::connect(header, &QHeaderView::sectionHandleDoubleClicked, fit, [fit, pending](int section) {
        if (section != 0)
            return;
        fit->byUser = false;
        pending->start();
    });
    const auto refit = [pending] { pending->start(); };
    auto *model = tree->model();
    QObject::connect(model, &QAbstractItemModel::rowsInserted, pending, refit);
    QObject::connect(model, &QAbstractItemModel::rowsRemoved, pending, refit);
    QObject::connect(model, &QAbstractItemModel::modelReset, pending, refit);
    QObject::connect(model, &QAbstractItemModel::dataChanged, pending, refit);
    QObject::connect(model, &QAbstractItemModel::layoutChanged, pending, refit);
    QObject::connect(tree, &QTreeView::expanded, pending, refit);
    QObject::connect(tree, &QTreeView::collapsed, pending, refit);
    fitNameColumn(tree, fit);
}

} // namespace sparsity::ui
