#pragma once
// WORKSPACE.json (README.md, "Desktop application"): what the user set up, to reopen later — open files, the tensor
// shown with its slice and selection, the sparsifier recipes (shared and per dataset), the
// Gradcheck panel's form, the export settings, the optimizer form, the dock layout.
// Data stays in the HDF5 files; a workspace only points at them. Paths are stored absolute
// and relative ones are read from the workspace's folder. Reading is strict: an unknown key
// or a wrong type is an InputError naming the file and the JSON path.
#include "ui/document/gradcheck_run.h"
#include "ui/document/optimizer_run.h"
#include "ui/document/tensor_document.h"

#include <QByteArray>
#include <QStringList>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sparsity::ui {

struct Workspace {
    QStringList files;
    QString currentFile, currentElement;
    std::vector<std::int64_t> slice;                              // of an N-d current tensor
    ElementSelection selection;                                   // in the current tensor
    std::optional<core::SparsifierConfig> sparsifier;             // the shared recipe
    std::map<QString, core::SparsifierConfig> datasetSparsifiers; // datasets' own recipes
    ExportSettings exportSettings;
    std::optional<OptimizerRequest> optimizer;      // the Optimizer panel's form
    std::optional<GradcheckPanelRequest> gradcheck; // the Gradcheck panel's form
    QByteArray windowGeometry, windowState;         // QMainWindow::saveGeometry/saveState
};

// The workspace as its file holds it.
std::string workspaceJson(const Workspace &workspace);
// Throws core::IoError when the file cannot be written (nothing is left behind then).
void saveWorkspace(const Workspace &workspace, const QString &path);
// Throws core::IoError (unreadable) or core::InputError (not JSON, unknown key, wrong type).
Workspace loadWorkspace(const QString &path);
// Whether `path` names a workspace (*.json) rather than an HDF5 file: how a path given on the
// command line or dropped on the window is opened.
bool isWorkspacePath(const QString &path);

} // namespace sparsity::ui
