#include "ui/mainwindow/recent_files.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <algorithm>

namespace sparsity::ui {
namespace {

const QString kKey = QStringLiteral("recentFiles");

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

QStringList deduplicated(const QStringList &paths)
{
    QStringList keys;
    for (const auto &path : paths)
        if (const auto key = recentFileKey(path); !key.isEmpty() && !keys.contains(key))
            keys << key;
    return keys;
}

} // namespace

QString recentFileKey(const QString &path)
{
    if (path.isEmpty())
        return {};
    const QFileInfo info(path);
    const QString canonical = info.canonicalFilePath(); // empty when the file is gone
    return canonical.isEmpty() ? QDir::cleanPath(info.absoluteFilePath()) : canonical;
}

QStringList loadRecentFiles() { return deduplicated(QSettings().value(kKey).toStringList()); }

QStringList rememberRecentFile(const QString &path, int limit)
{
    auto recent = deduplicated(QStringList{path} + QSettings().value(kKey).toStringList());
    while (recent.size() > limit)
        recent.removeLast();
    QSettings().setValue(kKey, recent);
    return recent;
}

QStringList recentFileLabels(const QStringList &paths)
{
    QStringList labels;
    for (const auto &path : paths) {
        const QString name = QFileInfo(path).fileName();
        const bool shared = std::count_if(paths.begin(), paths.end(),
                                          [&name](const QString &other) { return QFileInfo(other).fileName() == name; })
                            > 1;
        labels << (shared ? QStringLiteral("%1 — %2").arg(name, shownFolder(path)) : name);
    }
    return labels;
}

} // namespace sparsity::ui
