#pragma once
// What the Gradcheck panel asks to check (GradcheckPanelRequest: jobs run it, workspaces keep
// it) and the result of its last run as the document holds it (GradcheckRun: the expression,
// the inputs it was bound to and core::gradcheck's report). Free of widgets.
#include "core/autograd/gradcheck.h"
#include "ui/document/element_ref.h"

#include <QMap>
#include <QString>

namespace sparsity::ui {

struct GradcheckPanelRequest {
    QString expression;
    QMap<QString, ElementRef> inputs; // name -> the element bound to it
    core::GradcheckOptions options;
};

struct GradcheckRun {
    QString expression;
    QMap<QString, ElementRef> inputs; // name -> the element bound to it
    core::GradcheckReport report;
};

} // namespace sparsity::ui
