#pragma once
// TensorDocument: the tensor being looked at and the sparsifier preview on it (Tiled's
// MapDocument, in small). It owns the values, the specified mask, the threshold of the
// threshold sparsifier being previewed, and the undo stack every change to that threshold
// goes through. Views never talk to each other: they read the document and change it through
// commands, and repaint on its signals.
#include "core/tensor/tensor.h"

#include <QObject>
#include <QUndoStack>

#include <optional>

namespace sparsity::ui {

class TensorDocument : public QObject {
    Q_OBJECT

public:
    explicit TensorDocument(QObject *parent = nullptr);

    // Shows `tensor` (the rows loaded for viewing; `totalRows` is the whole tensor's). Not an
    // undoable change: choosing what to look at is navigation. Clears the undo history.
    void setTensor(const QString &title, const core::Tensor &tensor, std::int64_t totalRows);
    void clear();

    bool hasTensor() const { return !m_values.values.empty() || !m_values.shape.empty(); }
    const QString &title() const { return m_title; }
    std::int64_t totalRows() const { return m_totalRows; }
    const core::DenseTensor<double> &values() const { return m_values; }
    const core::Mask *specified() const { return m_specified ? &*m_specified : nullptr; }

    // The threshold preview: |x| < threshold is pruned (NaN kept, as `sparsity sparsify`).
    std::optional<double> threshold() const { return m_threshold; }
    // Pushes an undoable change; consecutive changes of one `gesture` (a mouse drag) merge
    // into one undo step. gesture < 0 never merges.
    void changeThreshold(std::optional<double> threshold, int gesture = -1);
    // Applied by the command; views call changeThreshold().
    void applyThreshold(std::optional<double> threshold);

    // One byte per element, 1 where the preview prunes; empty without a threshold.
    const core::Mask &pruned() const { return m_pruned; }
    // Pruned specified elements over specified elements (0 without a threshold).
    double prunedFraction() const { return m_prunedFraction; }

    QUndoStack *undoStack() { return &m_undoStack; }

signals:
    void tensorChanged();
    void thresholdChanged();

private:
    void updatePruned();

    QString m_title;
    std::int64_t m_totalRows = 0;
    core::DenseTensor<double> m_values;
    std::optional<core::Mask> m_specified;
    std::optional<double> m_threshold;
    core::Mask m_pruned;
    double m_prunedFraction = 0.0;
    QUndoStack m_undoStack;
};

} // namespace sparsity::ui
