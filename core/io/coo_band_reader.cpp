#include "core/io/coo_band_reader.h"

#include "core/io/coo_row_reader.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/tensor/coo_tensor.h"
#include "core/tensor/sorting.h"
#include "core/util/errors.h"

#include <algorithm>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

} // namespace

CooBandReader::CooBandReader(const H5File &file, const std::string &path, ValidationReport *report)
    : m_file(file), m_coo(openCooParts(file, path, report))
{
    if (m_coo.shape.empty() || m_coo.sparseDims < 1)
        throw InternalError("CooBandReader: a coo element with a sparse first dim");
    m_entriesPerRow.assign(at(m_coo.shape[0]), 0);
    // Each row's entries, counted in the scan that checks every index.
    checkCooIndices(file, m_coo, [&](std::int64_t, std::span<const std::int64_t> rows) {
        for (const auto row : rows)
            if (row >= 0 && row < m_coo.shape[0])
                ++m_entriesPerRow[at(row)];
    });
}

Tensor CooBandReader::readRows(RowRange rows) const
{
    if (!rows.within(m_coo.shape[0]))
        throw InternalError("CooBandReader::readRows: rows within the element's");
    // Its entries counted when it opened: the band is sized once and filled dim-major in place.
    std::int64_t nnz = 0;
    for (auto row = rows.begin; row < rows.end; ++row)
        nnz += m_entriesPerRow[at(row)];
    const auto perEntry = m_coo.valuesPerEntry();
    const auto window = cooEntriesPerRead(m_coo.sparseDims * 8 + perEntry * 8);
    auto band = readCooEntries(m_file, m_coo.path, {0, 0}); // an empty coo of the element's compute type
    std::visit(
        [&](auto &out) {
            using T = ValueOf<std::decay_t<decltype(out)>>;
            if constexpr (requires { out.sparseDims; }) {
                out.shape[0] = rows.count();
                out.nnz = nnz;
                out.indices.resize(at(m_coo.sparseDims * nnz));
                out.values.resize(at(nnz * perEntry));
                std::int64_t next = 0;
                for (std::int64_t first = 0; first < m_coo.entries; first += window) {
                    const auto part = readCooEntries(m_file, m_coo.path, {first, std::min(m_coo.entries, first + window)});
                    const auto &t = std::get<CooTensor<T>>(part.storage());
                    for (std::int64_t k = 0; k < t.nnz; ++k) {
                        const auto row = t.index(0, k);
                        if (row < rows.begin || row >= rows.end)
                            continue;
                        if (next >= nnz)
                            throw InputError(m_coo.where + ": its entries changed while it was read");
                        out.indices[at(next)] = row - rows.begin;
                        for (int d = 1; d < m_coo.sparseDims; ++d)
                            out.indices[at(d * nnz + next)] = t.index(d, k);
                        std::copy_n(t.values.begin() + k * perEntry, perEntry, out.values.begin() + next * perEntry);
                        ++next;
                    }
                }
                if (next != nnz)
                    throw InputError(m_coo.where + ": its entries changed while it was read");
                // Its indices were checked when it opened: only whether it is coalesced is left.
                out.coalesced = cooIsSortedUnique(out);
            } else {
                throw InternalError("CooBandReader::readRows: a coo tensor");
            }
        },
        band.storage());
    return band;
}

} // namespace sparsity::core
