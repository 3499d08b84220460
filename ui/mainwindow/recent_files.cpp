#include "ui/mainwindow/recent_files.h"

#include "ui/document/file_labels.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <algorithm>

namespace sparsity::ui {
namespace {

const QString kKey = QStringLiteral("recentFiles");

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
    for (const auto &path : paths)
        labels << fileLabel(path, paths);
    return labels;
}

} // namespace sparsity::ui
