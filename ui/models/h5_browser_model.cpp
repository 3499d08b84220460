#include "ui/models/h5_browser_model.h"

#include "core/util/errors.h"
#include "ui/document/file_labels.h"

#include <QFileInfo>

namespace sparsity::ui {

H5BrowserModel::H5BrowserModel(QObject *parent) : QAbstractItemModel(parent) {}

bool H5BrowserModel::addFile(const QString &path, core::ValidationReport *notes)
{
    OpenFile file{path, {}};
    try {
        const auto h5 = core::H5File::openRead(path.toStdString());
        core::ValidationReport listed; // reaches `notes` only when the whole file lists
        file.elements = core::listElements(h5, &listed);
        if (notes)
            notes->append(listed);
    } catch (const core::Error &error) {
        m_error = QString::fromStdString(error.what());
        return false;
    }
    file.id = m_nextFileId++;
    for (std::size_t row = 0; row < m_files.size(); ++row) {
        if (m_files[row].path != path)
            continue;
        beginResetModel(); // re-listing may change every element row of that file
        m_files[row] = std::move(file);
        endResetModel();
        return true;
    }
    const int row = static_cast<int>(m_files.size());
    beginInsertRows({}, row, row);
    m_files.push_back(std::move(file));
    endInsertRows();
    relabelFiles();
    return true;
}

void H5BrowserModel::relabelFiles()
{
    if (!m_files.empty())
        emit dataChanged(index(0, Name), index(fileCount() - 1, Name), {Qt::DisplayRole});
}

void H5BrowserModel::removeFile(int row)
{
    if (row < 0 || row >= fileCount())
        return;
    beginRemoveRows({}, row, row);
    m_files.erase(m_files.begin() + row);
    endRemoveRows();
    relabelFiles();
}

int H5BrowserModel::rowOfFile(quintptr id) const
{
    for (std::size_t row = 0; row < m_files.size(); ++row)
        if (m_files[row].id == id)
            return static_cast<int>(row);
    return -1;
}

const H5BrowserModel::OpenFile *H5BrowserModel::fileOf(const QModelIndex &index) const
{
    if (!index.isValid())
        return nullptr;
    const int row = index.internalId() == kFileRow ? index.row() : rowOfFile(index.internalId());
    return row >= 0 && row < fileCount() ? &m_files[static_cast<std::size_t>(row)] : nullptr;
}

QString H5BrowserModel::filePath(const QModelIndex &index) const
{
    const auto *file = fileOf(index);
    return file ? file->path : QString();
}

QStringList H5BrowserModel::filePaths() const
{
    QStringList paths;
    for (const auto &file : m_files)
        paths << file.path;
    return paths;
}

QString H5BrowserModel::fileLabel(const QString &path) const { return ui::fileLabel(path, filePaths()); }

QModelIndex H5BrowserModel::fileIndex(const QString &path) const
{
    for (int row = 0; row < fileCount(); ++row)
        if (m_files[static_cast<std::size_t>(row)].path == path)
            return index(row, 0);
    return {};
}

const core::ElementInfo *H5BrowserModel::element(const QModelIndex &index) const
{
    if (!index.isValid() || index.internalId() == kFileRow)
        return nullptr;
    const auto *file = fileOf(index);
    if (!file || index.row() < 0 || static_cast<std::size_t>(index.row()) >= file->elements.size())
        return nullptr;
    return &file->elements[static_cast<std::size_t>(index.row())];
}

QString H5BrowserModel::objectPath(const QModelIndex &index) const
{
    if (!index.isValid())
        return {};
    const auto *e = element(index);
    return e ? QString::fromStdString(e->path) : QStringLiteral("/");
}

QModelIndex H5BrowserModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < fileCount() ? createIndex(row, column, kFileRow) : QModelIndex();
    if (parent.internalId() != kFileRow || parent.row() >= fileCount())
        return {};
    const auto &file = m_files[static_cast<std::size_t>(parent.row())];
    if (row >= static_cast<int>(file.elements.size()))
        return {};
    return createIndex(row, column, file.id);
}

QModelIndex H5BrowserModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kFileRow)
        return {};
    const int row = rowOfFile(child.internalId());
    return row >= 0 ? createIndex(row, 0, kFileRow) : QModelIndex();
}

int H5BrowserModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return fileCount();
    if (parent.column() != 0 || parent.internalId() != kFileRow)
        return 0;
    return static_cast<int>(m_files[static_cast<std::size_t>(parent.row())].elements.size());
}

int H5BrowserModel::columnCount(const QModelIndex &) const { return ColumnCount; }

QVariant H5BrowserModel::elementData(const core::ElementInfo &e, int column) const
{
    switch (column) {
    case Name:
        return QString::fromStdString(e.path);
    case Layout:
        return e.masked ? QStringLiteral("masked (%1)").arg(QString::fromUtf8(core::layoutName(e.layout).data()))
                        : QString::fromUtf8(core::layoutName(e.layout).data());
    case Shape: {
        QStringList parts;
        for (auto extent : e.shape)
            parts << QString::number(extent);
        return parts.isEmpty() ? QStringLiteral("scalar") : parts.join(QStringLiteral(" × "));
    }
    case DType:
        return QString::fromUtf8(core::dtypeName(e.dtype).data());
    case Nnz:
        return e.nnz ? QVariant(QString::number(*e.nnz)) : QVariant(QStringLiteral("–"));
    case Encoding:
        return QString::fromUtf8(core::encodingName(e.encoding).data());
    default:
        return {};
    }
}

QVariant H5BrowserModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    if (index.internalId() == kFileRow) {
        const auto &file = m_files[static_cast<std::size_t>(index.row())];
        if (role == Qt::DisplayRole && index.column() == Name)
            return fileLabel(file.path);
        if (role == Qt::ToolTipRole)
            return file.path;
        if (role == Qt::DisplayRole && index.column() == Shape)
            return tr("%n tensor(s)", nullptr, static_cast<int>(file.elements.size()));
        return {};
    }
    const auto *e = element(index);
    if (!e)
        return {};
    if (role == Qt::DisplayRole || (role == Qt::ToolTipRole && (index.column() == Name || index.column() == Layout))) // elided
        return elementData(*e, index.column());
    if (role == Qt::TextAlignmentRole && index.column() == Nnz)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant H5BrowserModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *const titles[] = {"Name", "Layout", "Shape", "dtype", "nnz", "Encoding"};
    return section >= 0 && section < ColumnCount ? tr(titles[section]) : QVariant();
}

} // namespace sparsity::ui
