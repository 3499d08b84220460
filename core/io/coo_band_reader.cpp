#include "core/io/coo_band_reader.h"

#include "core/io/coo_row_reader.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/tensor/coo_tensor.h"
#include "core/util/errors.h"

#include <algorithm>
#include <optional>

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

std::vector<RowRange> CooBandReader::bandsOfEntries(RowRange span, std::int64_t entries, std::int64_t maxRows) const
{
    std::vector<RowRange> bands;
    std::int64_t begin = span.begin, held = 0;
    for (auto row = span.begin; row < span.end; ++row) {
        const auto here = m_entriesPerRow[at(row)];
        if (row > begin && (held + here > entries || row - begin >= maxRows)) {
            bands.push_back({begin, row});
            begin = row;
            held = 0;
        }
        held += here;
    }
    if (begin < span.end)
        bands.push_back({begin, span.end});
    return bands;
}

Tensor CooBandReader::readRows(RowRange rows) const
{
    if (!rows.within(m_coo.shape[0]))
        throw InternalError("CooBandReader::readRows: rows within the element's");
    std::int64_t nnz = 0;
    for (auto row = rows.begin; row < rows.end; ++row)
        nnz += m_entriesPerRow[at(row)];
    const auto perEntry = numel(m_coo.shape, at(m_coo.sparseDims), m_coo.shape.size());
    const auto window = cooEntriesPerRead(m_coo.sparseDims * 8 + perEntry * 8);
    std::optional<Tensor> band;
    for (std::int64_t first = 0; first < m_coo.entries; first += window) {
        const auto part = readCooEntries(m_file, m_coo.path, {first, std::min(m_coo.entries, first + window)});
        part.visit([&](const auto &t) {
            using T = ValueOf<std::decay_t<decltype(t)>>;
            if constexpr (requires { t.sparseDims; }) {
                if (!band) { // of the element's compute type, sized once
                    CooTensor<T> empty;
                    empty.shape = m_coo.shape;
                    empty.shape[0] = rows.count();
                    empty.sparseDims = m_coo.sparseDims;
                    empty.indices.reserve(at(m_coo.sparseDims * nnz));
                    empty.values.reserve(at(nnz * perEntry));
                    band.emplace(Storage{std::move(empty)});
                }
                auto &out = std::get<CooTensor<T>>(band->storage());
                for (std::int64_t k = 0; k < t.nnz; ++k) {
                    const auto row = t.index(0, k);
                    if (row < rows.begin || row >= rows.end)
                        continue;
                    // Dim-major: kept as dim after dim, each its entries in order, gathered below.
                    out.indices.push_back(row - rows.begin);
                    for (int d = 1; d < m_coo.sparseDims; ++d)
                        out.indices.push_back(t.index(d, k));
                    out.values.insert(out.values.end(), t.values.begin() + k * perEntry, t.values.begin() + (k + 1) * perEntry);
                    ++out.nnz;
                }
            } else {
                throw InternalError("CooBandReader::readRows: a coo tensor");
            }
        });
    }
    if (!band) // no entries at all: an empty coo of the element's type
        band = readCooEntries(m_file, m_coo.path, {0, 0});
    band->visit([&](const auto &t) {
        using T = ValueOf<std::decay_t<decltype(t)>>;
        if constexpr (requires { t.sparseDims; }) {
            auto &out = std::get<CooTensor<T>>(band->storage());
            // Entry-major (row, then its other dims) into dim-major.
            Buffer<std::int64_t> dimMajor(out.indices.size());
            for (std::int64_t k = 0; k < out.nnz; ++k)
                for (int d = 0; d < m_coo.sparseDims; ++d)
                    dimMajor[at(d * out.nnz + k)] = out.indices[at(k * m_coo.sparseDims + d)];
            out.indices = std::move(dimMajor);
            out.shape = m_coo.shape;
            out.shape[0] = rows.count();
            validateCoo(out, /*detectCoalesced=*/true);
        }
    });
    return *band;
}

} // namespace sparsity::core
