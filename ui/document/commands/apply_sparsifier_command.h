#pragma once
// ApplySparsifierCommand: replaces the document's loaded values by their sparsified version
// and adds a row to the report; undo puts the original values back exactly.
#include "core/tensor/tensor.h"
#include "ui/document/tensor_document.h"

#include <QUndoCommand>

namespace sparsity::ui {

class ApplySparsifierCommand : public QUndoCommand {
public:
    ApplySparsifierCommand(TensorDocument *document, core::Tensor before, core::Tensor after, SparsifierApplication application);

    void undo() override;
    void redo() override;

private:
    TensorDocument *m_document;
    core::Tensor m_before, m_after;
    SparsifierApplication m_application;
};

} // namespace sparsity::ui
