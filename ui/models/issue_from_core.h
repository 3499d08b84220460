#pragma once
// Core's findings and error messages as Issues. Core says where as "FILE:/ELEMENT" — in a
// Finding's location, and at the start of an error message ("/data/sample.h5:/emb: the last
// dim (64) must be a multiple of M=3"); the Issues dock wants the place apart from the text,
// to show it in a column of its own and to jump to it.
#include "core/util/validation_report.h"
#include "ui/models/issue.h"

#include <QList>
#include <QStringList>

namespace sparsity::ui {

// "FILE:/ELEMENT" split at its first ":/" past a drive letter ("C:/"); without one, a file.
ElementRef splitWhere(const QString &where);

// Notice becomes Note; the text is the CLI's note line without its location ("CSR I7: …").
Issue issueFromFinding(const core::Finding &finding);
QList<Issue> issuesFromReport(const core::ValidationReport &report);

// A core error message, located in the one of `files` it starts with — "FILE: …" or
// "FILE:/ELEMENT: …", that prefix then leaving the text — or else at `fallback`, whole.
Issue issueFromMessage(Issue::Severity severity,
                       const QString &message,
                       const QStringList &files,
                       const ElementRef &fallback = {});

} // namespace sparsity::ui
