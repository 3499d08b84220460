#include "ui/document/commands/change_export_settings_command.h"

#include <QCoreApplication>

namespace sparsity::ui {

ChangeExportSettingsCommand::ChangeExportSettingsCommand(TensorDocument *document, ExportSettings before, ExportSettings after)
    : m_document(document), m_before(std::move(before)), m_after(std::move(after))
{
    setText(QCoreApplication::translate("ChangeExportSettingsCommand", "Export settings"));
}

} // namespace sparsity::ui
