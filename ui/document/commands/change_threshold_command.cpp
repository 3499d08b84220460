#include "ui/document/commands/change_threshold_command.h"

#include "ui/document/tensor_document.h"

#include <QCoreApplication>

namespace sparsity::ui {

ChangeThresholdCommand::ChangeThresholdCommand(TensorDocument *document, std::optional<double> before,
                                               std::optional<double> after, int gesture)
    : m_document(document), m_before(before), m_after(after), m_gesture(gesture)
{
    updateText();
}

void ChangeThresholdCommand::undo() { m_document->applyThreshold(m_before); }
void ChangeThresholdCommand::redo() { m_document->applyThreshold(m_after); }

bool ChangeThresholdCommand::mergeWith(const QUndoCommand *other)
{
    const auto *next = static_cast<const ChangeThresholdCommand *>(other);
    if (m_gesture < 0 || next->m_gesture != m_gesture)
        return false;
    m_after = next->m_after;
    updateText();
    return true;
}

void ChangeThresholdCommand::updateText()
{
    setText(m_after ? QCoreApplication::translate("ChangeThresholdCommand", "Threshold %1").arg(*m_after, 0, 'g', 4)
                    : QCoreApplication::translate("ChangeThresholdCommand", "Clear threshold"));
}

} // namespace sparsity::ui
