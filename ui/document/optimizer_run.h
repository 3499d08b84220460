#pragma once
// What the Optimizer panel asks to run (OptimizerRequest: jobs run it, workspaces keep it) and
// the result of its last run as the document holds it (OptimizerRun: the same steps under
// each chosen semantics, core::compareSemantics, and what was run). Free of widgets, so jobs
// and workspaces need no panel.
#include "core/device/device.h"
#include "core/optim/optimizer_options.h"
#include "core/optim/semantics_comparison.h"
#include "core/tensor/row_range.h"
#include "ui/document/element_ref.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace sparsity::ui {

struct OptimizerRequest {
    core::OptimizerKind kind = core::OptimizerKind::Adagrad;
    core::Rule rule = core::Rule::Torch;
    core::HyperparameterInput hyperparameters;
    std::vector<core::Semantics> semantics;
    QStringList gradients; // element paths in the document's file, one step each
    QString mask;          // empty: none
    core::Device device = core::Device::Cpu;
};

struct OptimizerRun {
    QString description; // "adagrad (torch) lr 0.1 on /emb, 2 steps: /g0, /g1"
    ElementRef param;    // the tensor stepped
    // The rows of it stepped: all of them, or the window of rows shown of a table too large to
    // load whole (every result below holds these rows, numbered from rows.begin).
    core::RowRange rows;
    std::int64_t totalRows = 0;
    core::SemanticsComparison comparison;
    // The Applys in effect on the parameter when it ran (TensorDocument::appliedRecipes): its
    // results are stale once the values shown have others.
    QStringList appliedRecipes;
};

} // namespace sparsity::ui
