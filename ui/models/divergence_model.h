#pragma once
// DivergenceModel: where the semantics of the document's optimizer run disagree — one row per
// later semantics and tensor (param, each state, last_update) against the first semantics:
// the largest |difference| and the rows that differ. Thin: resets on optimizerRunChanged.
#include <QAbstractTableModel>

namespace sparsity::ui {

class TensorDocument;

class DivergenceModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Semantics, Tensor, MaxAbsDiff, DifferingRows, ColumnCount };

    explicit DivergenceModel(TensorDocument *document, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString semantics;
        QString tensor;
        double maxAbsDiff;
        qint64 differingRows;
    };
    void rebuild();

    TensorDocument *m_document;
    QList<Row> m_rows; // flattened from the run when it changes
};

} // namespace sparsity::ui
