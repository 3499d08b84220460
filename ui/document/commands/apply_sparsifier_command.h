#pragma once
// ApplySparsifierCommand: replaces a tensor's loaded values by their sparsified version and
// adds a row to its report; undo puts the original values back exactly. The command names
// its tensor: undone or redone while another tensor is shown, it changes that tensor's kept
// edits and has it shown again.
#include "ui/document/tensor_document.h"

#include <QUndoCommand>

namespace sparsity::ui {

class ApplySparsifierCommand : public QUndoCommand {
public:
    ApplySparsifierCommand(
        TensorDocument *document, TensorSource source, TensorEdits before, TensorEdits after, const QString &recipe);

    void undo() override;
    void redo() override;

private:
    TensorDocument *m_document;
    TensorSource m_source;
    TensorEdits m_before, m_after;
};

} // namespace sparsity::ui
