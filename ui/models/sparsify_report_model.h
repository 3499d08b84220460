#pragma once
// SparsifyReportModel: the document's sparsifier applications as a table (element, recipe,
// elements, nnz before, nnz after, sparsity). A thin model: it holds nothing and resets on
// the document's applicationsChanged.
#include <QAbstractTableModel>

namespace sparsity::ui {

class TensorDocument;

class SparsifyReportModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Element, Recipe, Elements, NnzBefore, NnzAfter, Sparsity, ColumnCount };

    explicit SparsifyReportModel(TensorDocument *document, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    TensorDocument *m_document;
};

} // namespace sparsity::ui
