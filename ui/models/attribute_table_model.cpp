#include "ui/models/attribute_table_model.h"

namespace sparsity::ui {

AttributeTableModel::AttributeTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void AttributeTableModel::setAttributes(std::vector<core::AttributeText> attributes)
{
    beginResetModel();
    m_attributes = std::move(attributes);
    endResetModel();
}

int AttributeTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_attributes.size());
}

int AttributeTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant AttributeTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    // The tooltip shows a value too long for its cell.
    if (role != Qt::DisplayRole && !(role == Qt::ToolTipRole && index.column() == Value))
        return {};
    const auto &attribute = m_attributes[static_cast<std::size_t>(index.row())];
    switch (index.column()) {
    case Name:
        return QString::fromStdString(attribute.name);
    case Type:
        return QString::fromStdString(attribute.type);
    case Value:
        return QString::fromStdString(attribute.value);
    default:
        return {};
    }
}

QVariant AttributeTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Name");
    case Type:
        return tr("Type");
    case Value:
        return tr("Value");
    default:
        return {};
    }
}

} // namespace sparsity::ui
