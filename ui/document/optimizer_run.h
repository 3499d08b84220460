#pragma once
// The result of the Optimizer panel's last run, as the document holds it: the same steps
// under each chosen semantics (core::compareSemantics) and what was run.
#include "core/optim/semantics_comparison.h"
#include "ui/document/element_ref.h"

#include <QString>

namespace sparsity::ui {

struct OptimizerRun {
    QString description; // "adagrad (torch) lr 0.1 on /emb, 2 steps: /g0, /g1"
    ElementRef param;    // the tensor stepped (loaded whole)
    core::SemanticsComparison comparison;
};

} // namespace sparsity::ui
