#pragma once
// The result of the Gradcheck panel's last run, as the document holds it: the expression,
// the inputs it was bound to and core::gradcheck's report.
#include "core/autograd/gradcheck.h"
#include "ui/document/element_ref.h"

#include <QMap>
#include <QString>

namespace sparsity::ui {

struct GradcheckRun {
    QString expression;
    QMap<QString, ElementRef> inputs; // name -> the element bound to it
    core::GradcheckReport report;
};

} // namespace sparsity::ui
