#include "ui/document/commands/set_optimizer_run_command.h"

#include <QCoreApplication>

namespace sparsity::ui {

SetOptimizerRunCommand::SetOptimizerRunCommand(TensorDocument *document, std::shared_ptr<const OptimizerRun> before,
                                               std::shared_ptr<const OptimizerRun> after)
    : m_document(document), m_before(std::move(before)), m_after(std::move(after))
{
    setText(m_after ? QCoreApplication::translate("SetOptimizerRunCommand", "Run %1").arg(m_after->description)
                    : QCoreApplication::translate("SetOptimizerRunCommand", "Clear optimizer run"));
}

} // namespace sparsity::ui
