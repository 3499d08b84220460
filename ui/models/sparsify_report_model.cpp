#include "ui/models/sparsify_report_model.h"

#include "ui/document/tensor_document.h"

namespace sparsity::ui {

SparsifyReportModel::SparsifyReportModel(TensorDocument *document, QObject *parent)
    : QAbstractTableModel(parent), m_document(document)
{
    connect(document, &TensorDocument::applicationsChanged, this, [this] {
        beginResetModel();
        endResetModel();
    });
}

int SparsifyReportModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_document->applications().size());
}

int SparsifyReportModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SparsifyReportModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto &a = m_document->applications()[static_cast<std::size_t>(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Elements ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Element:
        return a.element;
    case Recipe:
        return a.recipe;
    case Elements:
        return QVariant::fromValue(a.numel);
    case NnzBefore:
        return QVariant::fromValue(a.nnzBefore);
    case NnzAfter:
        return QVariant::fromValue(a.nnzAfter);
    case Sparsity:
        return a.numel ? QStringLiteral("%1%").arg(
                   100.0 * static_cast<double>(a.numel - a.nnzAfter) / static_cast<double>(a.numel), 0, 'f', 1)
                       : QStringLiteral("-");
    default:
        return {};
    }
}

QVariant SparsifyReportModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Element:
        return tr("Element");
    case Recipe:
        return tr("Recipe");
    case Elements:
        return tr("Elements");
    case NnzBefore:
        return tr("nnz before");
    case NnzAfter:
        return tr("nnz after");
    case Sparsity:
        return tr("Sparsity");
    default:
        return {};
    }
}

} // namespace sparsity::ui
