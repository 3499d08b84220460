#pragma once
// How a file is named to the user: its file name, or "name — folder" when another file of
// those it is shown among has the same name. Two open sample.h5 files were told apart
// nowhere (the Files panel, the title, the Gradcheck inputs), which made picking the wrong
// one easy; File ▸ Open Recent labels its entries the same way.
#include <QString>
#include <QStringList>

namespace sparsity::ui {

// `path`'s folder as shown: "~" for the home folder and below it.
QString shownFolder(const QString &path);
// `path`'s label among `files` (paths; `path` itself may be among them).
QString fileLabel(const QString &path, const QStringList &files);

} // namespace sparsity::ui
