#pragma once
// H5BrowserModel: the open HDF5 files and their tensor elements as a two-level tree
// (file -> element), with columns for layout, shape, dtype, nnz and encoding. A thin adapter
// over core::listElements; it reads metadata only.
#include "core/io/h5_catalog.h"

#include <QAbstractItemModel>
#include <QString>
#include <vector>

namespace sparsity::ui {

class H5BrowserModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column { Name, Layout, Shape, DType, Nnz, Encoding, ColumnCount };

    explicit H5BrowserModel(QObject *parent = nullptr);

    // Lists `path` and appends it. Returns false and sets errorString() when the file cannot
    // be read; the model is then unchanged. A file already open is listed again in place.
    // What listing leaves out (links repeating an object, non-numeric datasets) goes to
    // `notes` when given.
    bool addFile(const QString &path, core::ValidationReport *notes = nullptr);
    void removeFile(int row);
    int fileCount() const { return static_cast<int>(m_files.size()); }
    QString errorString() const { return m_error; }
    QString filePath(const QModelIndex &index) const;
    // Every open file's path, in the order listed.
    QStringList filePaths() const;
    // How the Files panel names the open file `path`: fileLabel() among the open files.
    QString fileLabel(const QString &path) const;
    // The row of the open file `path` (absolute); invalid when it is not open.
    QModelIndex fileIndex(const QString &path) const;
    // The element behind an element row; nullptr for file rows.
    const core::ElementInfo *element(const QModelIndex &index) const;
    // The HDF5 object a row stands for: the element's path, "/" (the root group) for a file
    // row; empty for an invalid index.
    QString objectPath(const QModelIndex &index) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    // A file opened or closed may make another's name shared or unique: its label changes.
    void relabelFiles();

    struct OpenFile {
        QString path;
        std::vector<core::ElementInfo> elements;
        quintptr id = 0; // never reused: what its element rows carry
    };
    // Element rows carry their file's id as internal id; file rows carry 0. Not the file's
    // row: closing a file above moves the rows of the files below it, and the view's current
    // and persistent indexes keep their internal ids.
    static constexpr quintptr kFileRow = 0;

    // The row of the file with `id`, or -1 (its file was closed).
    int rowOfFile(quintptr id) const;
    // The file an index belongs to (itself, or its element's), null when it is gone.
    const OpenFile *fileOf(const QModelIndex &index) const;

    QVariant elementData(const core::ElementInfo &element, int column) const;

    std::vector<OpenFile> m_files;
    quintptr m_nextFileId = 1;
    QString m_error;
};

} // namespace sparsity::ui
