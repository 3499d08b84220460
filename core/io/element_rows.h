#pragma once
// Rows of an element of any layout, kept in its layout: a window of rows of a table too large to
// load whole, which the desktop app's Optimizer panel steps (README.md, "Optimizer panel").
#include "core/io/coo_row_reader.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_handle.h"
#include "core/io/h5_reader.h"
#include "core/tensor/row_range.h"
#include "core/tensor/tensor.h"
#include "core/util/validation_report.h"

#include <optional>
#include <string>

namespace sparsity::core {

// Rows `rows` of the element at `path`, as sliceRows (core/tensor/slice_rows.h) gives them of the
// whole element: by hyperslab where readableByRows says so (dense, csr and masked_tensors of them
// with a mask of their layout), a row_sparse element's through RowSparseRowReader, a coo's whose
// rows ascend through CooRowReader, any other (coo, csc, other masked_tensors) read whole and
// sliced. What a read of rows leaves unread is not checked. Throws InputError naming the
// element for rows outside its own.
Tensor readElementRows(const H5File &file, const std::string &path, RowRange rows, ValidationReport *report = nullptr);

// Whether readElementRows reads `element`'s rows without reading the rest of it.
bool elementReadableByRows(const H5File &file, const ElementInfo &element);

// The same reads of one element again and again (the overview of a table built a chunk of rows
// at a time): the reader its layout needs is opened once (a row_sparse or coo reader reads
// every stored row's number when it opens), an element read whole is read once.
class ElementRowReader {
public:
    // `file` must outlive it. `report` takes the notes of the first read (null: none).
    ElementRowReader(const H5File &file, const std::string &path, ValidationReport *report = nullptr);
    // Rows `rows`, as readElementRows reads them.
    Tensor readRows(RowRange rows);
    // Whether it reads rows without reading the rest of the element (elementReadableByRows).
    bool readsByRows() const { return m_byHyperslab || m_rowSparse || m_coo; }

private:
    const H5File &m_file;
    ElementInfo m_element;
    ValidationReport *m_report;
    bool m_byHyperslab; // dense, csr, and masked_tensors of them with a mask of their layout
    std::optional<RowSparseRowReader> m_rowSparse;
    std::optional<CooRowReader> m_coo;
    std::optional<Tensor> m_whole;
};

} // namespace sparsity::core
