#include "ui/document/tensor_document.h"

#include "core/tensor/tensor_ops.h"
#include "ui/document/commands/change_threshold_command.h"

#include <cmath>

namespace sparsity::ui {

TensorDocument::TensorDocument(QObject *parent) : QObject(parent) {}

void TensorDocument::setTensor(const QString &title, const core::Tensor &tensor, std::int64_t totalRows)
{
    m_title = title;
    m_totalRows = totalRows;
    m_values = core::toDenseDouble(tensor);
    m_specified.reset();
    if (tensor.isMasked())
        m_specified = core::specifiedMaskDense(tensor);
    m_undoStack.clear();
    m_threshold.reset();
    updatePruned();
    emit tensorChanged();
    emit thresholdChanged();
}

void TensorDocument::clear()
{
    m_title.clear();
    m_totalRows = 0;
    m_values = {};
    m_specified.reset();
    m_undoStack.clear();
    m_threshold.reset();
    updatePruned();
    emit tensorChanged();
    emit thresholdChanged();
}

void TensorDocument::changeThreshold(std::optional<double> threshold, int gesture)
{
    if (threshold == m_threshold)
        return;
    m_undoStack.push(new ChangeThresholdCommand(this, m_threshold, threshold, gesture));
}

void TensorDocument::applyThreshold(std::optional<double> threshold)
{
    m_threshold = threshold;
    updatePruned();
    emit thresholdChanged();
}

void TensorDocument::updatePruned()
{
    m_pruned.clear();
    m_prunedFraction = 0.0;
    if (!m_threshold)
        return;
    const auto n = m_values.values.size();
    m_pruned.resize(n);
    std::size_t pruned = 0, specified = 0;
    for (std::size_t i = 0; i < n; ++i) {
        // The same rule as the threshold sparsifier: |x| < T pruned, NaN kept.
        m_pruned[i] = std::abs(m_values.values[i]) < *m_threshold;
        if (!m_specified || (*m_specified)[i]) {
            ++specified;
            pruned += m_pruned[i];
        }
    }
    m_prunedFraction = specified ? static_cast<double>(pruned) / static_cast<double>(specified) : 0.0;
}

} // namespace sparsity::ui
