#include "ui/document/file_labels.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>

namespace sparsity::ui {

QString shownFolder(const QString &path)
{
    const QString folder = QFileInfo(path).absolutePath();
    const QString home = QDir::homePath();
    if (folder == home)
        return QStringLiteral("~");
    if (folder.startsWith(home + QLatin1Char('/')))
        return QDir::toNativeSeparators(QStringLiteral("~") + folder.mid(home.size()));
    return QDir::toNativeSeparators(folder);
}

QString fileLabel(const QString &path, const QStringList &files)
{
    const QFileInfo info(path);
    const QString name = info.fileName();
    const bool shared = std::any_of(files.begin(), files.end(), [&](const QString &other) {
        const QFileInfo otherInfo(other);
        return otherInfo.fileName() == name && otherInfo.absoluteFilePath() != info.absoluteFilePath();
    });
    return shared ? QStringLiteral("%1 — %2").arg(name, shownFolder(path)) : name;
}

} // namespace sparsity::ui
