#pragma once
// ChangeSparsifierCommand: sets a sparsifier recipe of a TensorDocument (method and
// parameters, or none) — the shared recipe, or one dataset's own. Commands of the same gesture
// (one histogram drag, one spin box being stepped) on the same recipe merge, so a gesture is
// one undo step.
#include "core/sparsify/sparsifier_config.h"

#include <QString>
#include <QUndoCommand>
#include <optional>

namespace sparsity::ui {

class TensorDocument;

class ChangeSparsifierCommand : public QUndoCommand {
public:
    // `dataset` empty: the shared recipe; else that dataset's own.
    ChangeSparsifierCommand(TensorDocument *document,
                            QString dataset,
                            std::optional<core::SparsifierConfig> before,
                            std::optional<core::SparsifierConfig> after,
                            int gesture);

    void undo() override;
    void redo() override;
    int id() const override { return 1; }
    bool mergeWith(const QUndoCommand *other) override;

private:
    void updateText();

    TensorDocument *m_document;
    QString m_dataset;
    std::optional<core::SparsifierConfig> m_before, m_after;
    int m_gesture;
};

} // namespace sparsity::ui
