#pragma once
// File > Open Recent's list: newest first, kept in QSettings ("recentFiles"). A file is
// remembered by its canonical absolute path, so one reached through a symlink or "../" is one
// entry; labels tell apart the entries that share a file name.
#include <QStringList>

namespace sparsity::ui {

// The path a file is remembered by: canonical when it exists, else its clean absolute path.
QString recentFileKey(const QString &path);
// The list in QSettings, each path as its key, duplicates dropped (settings written by an
// older version may name one file twice).
QStringList loadRecentFiles();
// Puts `path` first in the list in QSettings (at most `limit` entries); returns the new list.
QStringList rememberRecentFile(const QString &path, int limit);
// One menu label per path: its file name, or "name — parent folder" for the paths sharing
// a file name with another ("~" stands for the home folder).
QStringList recentFileLabels(const QStringList &paths);

} // namespace sparsity::ui
