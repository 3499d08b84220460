#include "ui/document/commands/apply_sparsifier_command.h"

#include <QCoreApplication>

namespace sparsity::ui {

ApplySparsifierCommand::ApplySparsifierCommand(
    TensorDocument *document, TensorSource source, TensorEdits before, TensorEdits after, const QString &recipe)
    : m_document(document), m_source(std::move(source)), m_before(std::move(before)), m_after(std::move(after))
{
    setText(QCoreApplication::translate("ApplySparsifierCommand", "Apply %1 to %2").arg(recipe, m_source.elementPath));
}

void ApplySparsifierCommand::undo() { m_document->setEdits(m_source, m_before); }

void ApplySparsifierCommand::redo() { m_document->setEdits(m_source, m_after); }

} // namespace sparsity::ui
