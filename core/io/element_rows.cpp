#include "core/io/element_rows.h"

#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/tensor/slice_rows.h"
#include "core/util/errors.h"

namespace sparsity::core {

Tensor readElementRows(const H5File &file, const std::string &path, RowRange rows, ValidationReport *report)
{
    const auto element = requireElement(file, path);
    if (element.shape.empty() || !rows.within(element.shape[0]))
        throw errors::mustBe(file.where(element.path) + " row range",
                             "lie within its " + std::to_string(element.shape.empty() ? 0 : element.shape[0]) + " rows",
                             rows.text());
    if (readableByRows(file, element))
        return readTensor(file, path, report, rows);
    if (rowSparseReadableByRows(file, element))
        return RowSparseRowReader(file, path, report).readRows(rows);
    return sliceRows(readTensor(file, path, report), rows);
}

} // namespace sparsity::core
