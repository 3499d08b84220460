#include "ui/models/divergence_model.h"

#include "ui/document/tensor_document.h"

namespace sparsity::ui {

DivergenceModel::DivergenceModel(TensorDocument *document, QObject *parent) : QAbstractTableModel(parent), m_document(document)
{
    connect(document, &TensorDocument::optimizerRunChanged, this, &DivergenceModel::rebuild);
    rebuild();
}

void DivergenceModel::rebuild()
{
    beginResetModel();
    m_rows.clear();
    if (const auto &run = m_document->optimizerRun()) {
        const auto &c = run->comparison;
        const auto name = [](core::Semantics s) { return QString::fromUtf8(core::semanticsName(s).data()); };
        for (std::size_t k = 0; k < c.divergence.size(); ++k)
            for (const auto &d : c.divergence[k])
                m_rows.push_back({QStringLiteral("%1 vs %2").arg(name(c.results[k + 1].semantics), name(c.results[0].semantics)),
                                  QString::fromStdString(d.name), d.maxAbsDiff, d.differingRows});
    }
    endResetModel();
}

int DivergenceModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }

int DivergenceModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DivergenceModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto &row = m_rows[index.row()];
    if (role == Qt::TextAlignmentRole)
        return index.column() >= MaxAbsDiff ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Semantics:
        return row.semantics;
    case Tensor:
        return row.tensor;
    case MaxAbsDiff:
        return QString::number(row.maxAbsDiff, 'g', 4);
    case DifferingRows:
        return row.differingRows;
    default:
        return {};
    }
}

QVariant DivergenceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Semantics:
        return tr("Semantics");
    case Tensor:
        return tr("Tensor");
    case MaxAbsDiff:
        return tr("max |diff|");
    case DifferingRows:
        return tr("Rows differing");
    default:
        return {};
    }
}

} // namespace sparsity::ui
