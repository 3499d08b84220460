#include "ui/dialogs/export_destination.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace sparsity::ui {
namespace {

const QString kLastOutput = QStringLiteral("export/lastOutput");
const QString kLastInput = QStringLiteral("export/lastInput");

} // namespace

QString suggestedExportPath(const QString &inputPath)
{
    const QSettings settings;
    const QFileInfo input(inputPath);
    const QString lastOutput = settings.value(kLastOutput).toString();
    if (lastOutput.isEmpty())
        return input.dir().filePath(input.completeBaseName() + QStringLiteral(".sparsified.h5"));
    if (settings.value(kLastInput).toString() == input.absoluteFilePath())
        return lastOutput;
    return QFileInfo(lastOutput).dir().filePath(input.completeBaseName() + QStringLiteral(".sparsified.h5"));
}

void rememberExportPath(const QString &inputPath, const QString &outputPath)
{
    QSettings settings;
    settings.setValue(kLastInput, QFileInfo(inputPath).absoluteFilePath());
    settings.setValue(kLastOutput, QFileInfo(outputPath).absoluteFilePath());
}

} // namespace sparsity::ui
