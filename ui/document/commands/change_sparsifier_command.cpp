#include "ui/document/commands/change_sparsifier_command.h"

#include "ui/document/tensor_document.h"

#include <QCoreApplication>

namespace sparsity::ui {

ChangeSparsifierCommand::ChangeSparsifierCommand(TensorDocument *document, std::optional<core::SparsifierConfig> before,
                                                 std::optional<core::SparsifierConfig> after, int gesture)
    : m_document(document), m_before(std::move(before)), m_after(std::move(after)), m_gesture(gesture)
{
    updateText();
}

void ChangeSparsifierCommand::undo() { m_document->setSparsifier(m_before); }
void ChangeSparsifierCommand::redo() { m_document->setSparsifier(m_after); }

bool ChangeSparsifierCommand::mergeWith(const QUndoCommand *other)
{
    const auto *next = static_cast<const ChangeSparsifierCommand *>(other);
    if (m_gesture < 0 || next->m_gesture != m_gesture)
        return false;
    m_after = next->m_after;
    updateText();
    return true;
}

void ChangeSparsifierCommand::updateText()
{
    setText(m_after ? QCoreApplication::translate("ChangeSparsifierCommand", "Sparsifier %1").arg(describeSparsifier(*m_after))
                    : QCoreApplication::translate("ChangeSparsifierCommand", "Clear sparsifier"));
}

} // namespace sparsity::ui
