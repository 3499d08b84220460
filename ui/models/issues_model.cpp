#include "ui/models/issues_model.h"

#include <QApplication>
#include <QIcon>
#include <QStringList>
#include <QStyle>
#include <algorithm>

namespace sparsity::ui {
namespace {

QIcon severityIcon(Issue::Severity severity)
{
    switch (severity) {
    case Issue::Severity::Error:
        return QApplication::style()->standardIcon(QStyle::SP_MessageBoxCritical);
    case Issue::Severity::Warning:
        return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
    case Issue::Severity::Note:
        return QApplication::style()->standardIcon(QStyle::SP_MessageBoxInformation);
    }
    return {};
}

} // namespace

IssuesModel::IssuesModel(QObject *parent) : QAbstractTableModel(parent) {}

bool IssuesModel::add(Issue issue)
{
    if (!issue.time.isValid())
        issue.time = QDateTime::currentDateTime();
    const auto same = [&](const Issue &listed) {
        return listed.severity == issue.severity && listed.location == issue.location && listed.text == issue.text;
    };
    const auto listed = std::find_if(m_issues.begin(), m_issues.end(), same);
    if (listed != m_issues.end()) {
        if (issue.severity == Issue::Severity::Error) {
            ++listed->repeats;
            listed->time = issue.time;
            const int row = static_cast<int>(listed - m_issues.begin());
            emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
        }
        return false;
    }
    const int row = static_cast<int>(m_issues.size());
    beginInsertRows({}, row, row);
    m_issues.push_back(std::move(issue));
    endInsertRows();
    return true;
}

void IssuesModel::clear()
{
    beginResetModel();
    m_issues.clear();
    endResetModel();
}

int IssuesModel::count(Issue::Severity severity) const
{
    // Rows, not reports: a row says how often its error repeated.
    return static_cast<int>(
        std::count_if(m_issues.begin(), m_issues.end(), [&](const Issue &issue) { return issue.severity == severity; }));
}

QString IssuesModel::countsText() const
{
    // Spelled out: tr()'s %n plurals need a translation loaded, and the app ships none.
    const auto counted = [](int n, const QString &one, const QString &many) { return n == 1 ? one : many.arg(n); };
    QStringList parts;
    if (const int errors = count(Issue::Severity::Error))
        parts << counted(errors, tr("1 error"), tr("%1 errors"));
    if (const int warnings = count(Issue::Severity::Warning))
        parts << counted(warnings, tr("1 warning"), tr("%1 warnings"));
    if (const int notes = count(Issue::Severity::Note))
        parts << counted(notes, tr("1 note"), tr("%1 notes"));
    return parts.join(QStringLiteral(", "));
}

int IssuesModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : static_cast<int>(m_issues.size()); }

int IssuesModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant IssuesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto &issue = m_issues.at(index.row());
    switch (index.column()) {
    case SeverityColumn:
        if (role == Qt::DisplayRole)
            return severityName(issue.severity);
        if (role == Qt::DecorationRole)
            return severityIcon(issue.severity);
        if (role == Qt::ToolTipRole)
            return tr("%1 at %2").arg(severityName(issue.severity), issue.time.toString(QStringLiteral("HH:mm:ss")));
        return {};
    case LocationColumn:
        if (role == Qt::DisplayRole)
            return issue.locationText();
        if (role == Qt::ToolTipRole && !issue.locationText().isEmpty()) // the full path; the column has the name
            return tr("%1\nDouble-click to show it in the Files panel").arg(issue.fullLocation());
        return {};
    case MessageColumn:
        if (role == Qt::DisplayRole || role == Qt::ToolTipRole) // a long message is elided in the column
            return issue.repeats > 1 ? tr("%1 (%2 times)").arg(issue.text).arg(issue.repeats) : issue.text;
        return {};
    default:
        return {};
    }
}

QVariant IssuesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case SeverityColumn:
        return tr("Severity");
    case LocationColumn:
        return tr("Location");
    case MessageColumn:
        return tr("Message");
    default:
        return {};
    }
}

} // namespace sparsity::ui
