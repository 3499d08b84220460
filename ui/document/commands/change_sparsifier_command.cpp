#include "ui/document/commands/change_sparsifier_command.h"

#include "ui/document/tensor_document.h"

#include <QCoreApplication>

namespace sparsity::ui {

ChangeSparsifierCommand::ChangeSparsifierCommand(TensorDocument *document,
                                                 QString dataset,
                                                 std::optional<core::SparsifierConfig> before,
                                                 std::optional<core::SparsifierConfig> after,
                                                 int gesture)
    : m_document(document), m_dataset(std::move(dataset)), m_before(std::move(before)), m_after(std::move(after)),
      m_gesture(gesture)
{
    updateText();
}

void ChangeSparsifierCommand::undo() { m_document->setSparsifier(m_dataset, m_before); }
void ChangeSparsifierCommand::redo() { m_document->setSparsifier(m_dataset, m_after); }

bool ChangeSparsifierCommand::mergeWith(const QUndoCommand *other)
{
    const auto *next = static_cast<const ChangeSparsifierCommand *>(other);
    if (m_gesture < 0 || next->m_gesture != m_gesture || next->m_dataset != m_dataset)
        return false;
    m_after = next->m_after;
    updateText();
    return true;
}

void ChangeSparsifierCommand::updateText()
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("ChangeSparsifierCommand", text); };
    if (m_dataset.isEmpty())
        setText(m_after ? tr("Sparsifier %1").arg(describeSparsifier(*m_after)) : tr("Clear sparsifier"));
    else
        setText(m_after ? tr("Sparsifier of %1: %2").arg(m_dataset, describeSparsifier(*m_after))
                        : tr("%1 uses the shared sparsifier").arg(m_dataset));
}

} // namespace sparsity::ui
