#pragma once
// ChangeExportSettingsCommand: the datasets, layout and compression Export and Save as batch
// write, as one undo step per dialog confirmation.
#include "ui/document/tensor_document.h"

#include <QUndoCommand>

namespace sparsity::ui {

class ChangeExportSettingsCommand : public QUndoCommand {
public:
    ChangeExportSettingsCommand(TensorDocument *document, ExportSettings before, ExportSettings after);

    void undo() override { m_document->setExportSettings(m_before); }
    void redo() override { m_document->setExportSettings(m_after); }

private:
    TensorDocument *m_document;
    ExportSettings m_before, m_after;
};

} // namespace sparsity::ui
