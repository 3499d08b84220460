#pragma once
// AttributeTableModel: one HDF5 object's attributes (core::listAttributes) as a table of Name,
// Type and Value. It holds a copy of the rows it was given; it reads no file.
#include "core/io/h5_attribute_list.h"

#include <QAbstractTableModel>
#include <vector>

namespace sparsity::ui {

class AttributeTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Name, Type, Value, ColumnCount };

    explicit AttributeTableModel(QObject *parent = nullptr);

    void setAttributes(std::vector<core::AttributeText> attributes);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<core::AttributeText> m_attributes;
};

} // namespace sparsity::ui
