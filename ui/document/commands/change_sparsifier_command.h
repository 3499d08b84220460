#pragma once
// ChangeSparsifierCommand: sets the sparsifier recipe of a TensorDocument (method and
// parameters, or none). Commands of the same gesture (one histogram drag, one spin box being
// stepped) merge, so a gesture is one undo step.
#include "core/sparsify/sparsifier_config.h"

#include <QUndoCommand>

#include <optional>

namespace sparsity::ui {

class TensorDocument;

class ChangeSparsifierCommand : public QUndoCommand {
public:
    ChangeSparsifierCommand(TensorDocument *document, std::optional<core::SparsifierConfig> before,
                            std::optional<core::SparsifierConfig> after, int gesture);

    void undo() override;
    void redo() override;
    int id() const override { return 1; }
    bool mergeWith(const QUndoCommand *other) override;

private:
    void updateText();

    TensorDocument *m_document;
    std::optional<core::SparsifierConfig> m_before, m_after;
    int m_gesture;
};

} // namespace sparsity::ui
