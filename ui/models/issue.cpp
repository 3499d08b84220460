#include "ui/models/issue.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace sparsity::ui {

QString Issue::locationText() const
{
    const QString file = location.file.isEmpty() ? QString() : QFileInfo(location.file).fileName();
    if (location.path.isEmpty())
        return file;
    return file.isEmpty() ? location.path : file + QLatin1Char(':') + location.path;
}

QString Issue::fullLocation() const
{
    if (location.path.isEmpty())
        return location.file;
    return location.file.isEmpty() ? location.path : location.file + QLatin1Char(':') + location.path;
}

QString Issue::summary() const
{
    const QString where = fullLocation();
    return where.isEmpty() ? text : where + QStringLiteral(": ") + text;
}

QString severityName(Issue::Severity severity)
{
    switch (severity) {
    case Issue::Severity::Error:
        return QCoreApplication::translate("Issue", "Error");
    case Issue::Severity::Warning:
        return QCoreApplication::translate("Issue", "Warning");
    case Issue::Severity::Note:
        return QCoreApplication::translate("Issue", "Note");
    }
    return {};
}

} // namespace sparsity::ui
