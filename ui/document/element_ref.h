#pragma once
// An element (a dataset or an encoded group) of an HDF5 file, by file and path.
#include <QString>

namespace sparsity::ui {

struct ElementRef {
    QString file;
    QString path;
    bool operator==(const ElementRef &) const = default;
};

} // namespace sparsity::ui
