#include "core/io/element_rows.h"

#include "core/tensor/slice_rows.h"
#include "core/util/errors.h"

#include <utility>

namespace sparsity::core {

Tensor readElementRows(const H5File &file, const std::string &path, RowRange rows, ValidationReport *report)
{
    return ElementRowReader(file, path, report).readRows(rows);
}

bool elementReadableByRows(const H5File &file, const ElementInfo &element)
{
    return readableByRows(file, element) || rowSparseReadableByRows(file, element) || cooReadableByRows(file, element);
}

ElementRowReader::ElementRowReader(const H5File &file, const std::string &path, ValidationReport *report)
    : m_file(file), m_element(requireElement(file, path)), m_report(report), m_byHyperslab(readableByRows(file, m_element))
{
    if (m_byHyperslab)
        return;
    if (rowSparseReadableByRows(file, m_element))
        m_rowSparse.emplace(file, m_element.path, std::exchange(m_report, nullptr));
    else if (cooReadableByRows(file, m_element))
        m_coo.emplace(file, m_element.path, std::exchange(m_report, nullptr));
}

Tensor ElementRowReader::readRows(RowRange rows)
{
    const auto &shape = m_element.shape;
    if (shape.empty() || !rows.within(shape[0]))
        throw errors::mustBe(m_file.where(m_element.path) + " row range",
                             "lie within its " + std::to_string(shape.empty() ? 0 : shape[0]) + " rows", rows.text());
    if (m_rowSparse)
        return m_rowSparse->readRows(rows);
    if (m_coo)
        return m_coo->readRows(rows);
    if (m_byHyperslab)
        return readTensor(m_file, m_element.path, std::exchange(m_report, nullptr), rows);
    if (!m_whole)
        m_whole = readTensor(m_file, m_element.path, std::exchange(m_report, nullptr));
    return sliceRows(*m_whole, rows);
}

} // namespace sparsity::core
