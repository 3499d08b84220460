#pragma once
// SetOptimizerRunCommand: replaces the document's optimizer run (the results the Optimizer
// panel shows); undo brings the previous one back.
#include "ui/document/tensor_document.h"

#include <QUndoCommand>

namespace sparsity::ui {

class SetOptimizerRunCommand : public QUndoCommand {
public:
    SetOptimizerRunCommand(TensorDocument *document, std::shared_ptr<const OptimizerRun> before,
                           std::shared_ptr<const OptimizerRun> after);

    void undo() override { m_document->setOptimizerRun(m_before); }
    void redo() override { m_document->setOptimizerRun(m_after); }

private:
    TensorDocument *m_document;
    std::shared_ptr<const OptimizerRun> m_before, m_after;
};

} // namespace sparsity::ui
