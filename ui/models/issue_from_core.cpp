#include "ui/models/issue_from_core.h"

namespace sparsity::ui {

ElementRef splitWhere(const QString &where)
{
    const auto separator = where.indexOf(QStringLiteral(":/"), 2);
    if (separator < 0)
        return {where, {}};
    return {where.left(separator), where.mid(separator + 1)};
}

Issue issueFromFinding(const core::Finding &finding)
{
    Issue issue;
    issue.severity = finding.severity == core::Severity::Warning ? Issue::Severity::Warning : Issue::Severity::Note;
    issue.location = splitWhere(QString::fromStdString(finding.location));
    issue.text = QString::fromStdString(finding.detail);
    if (!finding.invariant.empty())
        issue.text = QString::fromStdString(finding.invariant) + QStringLiteral(": ") + issue.text;
    return issue;
}

QList<Issue> issuesFromReport(const core::ValidationReport &report)
{
    QList<Issue> issues;
    for (const auto &finding : report.findings())
        issues << issueFromFinding(finding);
    return issues;
}

Issue issueFromMessage(Issue::Severity severity, const QString &message, const QStringList &files, const ElementRef &fallback)
{
    const QString separator = QStringLiteral(": ");
    for (const auto &file : files) {
        if (file.isEmpty() || !message.startsWith(file + QLatin1Char(':')))
            continue;
        const auto rest = QStringView(message).mid(file.size() + 1);
        if (rest.startsWith(QLatin1Char(' ')))
            return {severity, {file, {}}, rest.mid(1).toString(), {}};
        // An element path ends at ": "; one with a space in it is more likely core's
        // "FILE:/ELEMENT row range: …", which is left whole rather than cut in the wrong place.
        const auto end = rest.indexOf(separator);
        if (rest.startsWith(QLatin1Char('/')) && end > 0 && !rest.left(end).contains(QLatin1Char(' ')))
            return {severity, {file, rest.left(end).toString()}, rest.mid(end + separator.size()).toString(), {}};
    }
    return {severity, fallback, message, {}};
}

} // namespace sparsity::ui
