#pragma once
// Where File > Export Sparsified suggests writing, remembered across sessions in QSettings:
// exporting the input last exported again suggests the same output path; another input gets
// its own name, "<stem>.sparsified.h5", in the folder last exported to (before any export:
// beside the input).
#include <QString>

namespace sparsity::ui {

QString suggestedExportPath(const QString &inputPath);
// Called with the path the user chose in the dialog.
void rememberExportPath(const QString &inputPath, const QString &outputPath);

} // namespace sparsity::ui
