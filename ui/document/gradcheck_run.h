#pragma once
// The result of the Gradcheck panel's last run, as the document holds it: the expression,
// the inputs it was bound to and core::gradcheck's report.
#include "core/autograd/gradcheck.h"
#include "ui/document/element_ref.h"

#include <QMap>
#include <QString>
#include <QStringList>

namespace sparsity::ui {

struct GradcheckRun {
    QString expression;
    QStringList inputs;   // NAME=FILE.h5:PATH, as `sparsity gradcheck --input`
    QMap<QString, ElementRef> bound;   // the same, by name
    core::GradcheckReport report;
};

} // namespace sparsity::ui
