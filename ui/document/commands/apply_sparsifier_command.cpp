#include "ui/document/commands/apply_sparsifier_command.h"

#include <QCoreApplication>

namespace sparsity::ui {

ApplySparsifierCommand::ApplySparsifierCommand(TensorDocument *document,
                                               core::Tensor before,
                                               core::Tensor after,
                                               SparsifierApplication application)
    : m_document(document), m_before(std::move(before)), m_after(std::move(after)), m_application(std::move(application))
{
    setText(QCoreApplication::translate("ApplySparsifierCommand", "Apply %1").arg(m_application.recipe));
}

void ApplySparsifierCommand::undo()
{
    m_document->setValues(m_before);
    m_document->popApplication();
}

void ApplySparsifierCommand::redo()
{
    m_document->setValues(m_after);
    m_document->pushApplication(m_application);
}

} // namespace sparsity::ui
