#include "core/io/coo_band_reader.h"

#include "core/io/coo_row_reader.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/tensor/coo_tensor.h"
#include "core/tensor/dtype.h"
#include "core/tensor/sorting.h"
#include "core/util/errors.h"

#include <algorithm>
#include <cstring>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

} // namespace

CooBandReader::CooBandReader(const H5File &file, const std::string &path, ValidationReport *report)
    : RowBandReader(report), m_file(file), m_coo(openCooParts(file, path, report))
{
    if (m_coo.shape.empty() || m_coo.sparseDims < 1)
        throw InternalError("CooBandReader: a coo element with a sparse first dim");
    m_counts = RowCounts(m_coo.shape[0]);
    // Each row's entries, counted in the scan that checks every index.
    checkCooIndices(file, m_coo, [&](std::int64_t, std::span<const std::int64_t> indices) {
        for (const auto row : indices.first(indices.size() / at(m_coo.sparseDims)))
            if (row >= 0 && row < m_coo.shape[0])
                m_counts.add(row);
    });
    m_counts.finish();
    m_valueBytes = static_cast<std::int64_t>(dtypeSize(emptyBand().dtype()));
}

Tensor CooBandReader::emptyBand() const { return readCooEntries(m_file, m_coo.path, {0, 0}); }

std::int64_t CooBandReader::recordBytes() const { return 8 * (m_coo.sparseDims - 1) + m_coo.valuesPerEntry() * m_valueBytes; }

void CooBandReader::scanRecords(const RecordSink &take) const
{
    const auto perEntry = m_coo.valuesPerEntry();
    const auto bytes = recordBytes();
    const auto window = cooEntriesPerRead(m_coo.sparseDims * 8 + perEntry * 8);
    std::vector<std::byte> records;
    for (std::int64_t first = 0; first < m_coo.entries; first += window) {
        const auto part = readCooEntries(m_file, m_coo.path, {first, std::min(m_coo.entries, first + window)});
        part.visit([&](const auto &t) {
            if constexpr (requires { t.sparseDims; }) {
                using T = ValueOf<std::decay_t<decltype(t)>>;
                records.resize(at(t.nnz * bytes));
                for (std::int64_t k = 0; k < t.nnz; ++k) {
                    auto *record = records.data() + k * bytes;
                    for (int d = 1; d < m_coo.sparseDims; ++d) {
                        const auto index = t.index(d, k);
                        std::memcpy(record + 8 * (d - 1), &index, 8);
                    }
                    std::memcpy(record + 8 * (m_coo.sparseDims - 1), t.values.data() + k * perEntry, at(perEntry) * sizeof(T));
                }
                take({t.indices.data(), at(t.nnz)}, records.data()); // dim 0's indices: the rows
            } else {
                throw InternalError("CooBandReader::scanRecords: a coo tensor");
            }
        });
    }
}

Tensor CooBandReader::bandOfRecords(RowRange rows, std::span<const std::byte> records) const
{
    const auto perEntry = m_coo.valuesPerEntry();
    const auto bytes = recordBytes();
    const auto nnz = std::ssize(records) / bytes;
    auto band = emptyBand();
    std::visit(
        [&](auto &out) {
            using T = ValueOf<std::decay_t<decltype(out)>>;
            if constexpr (requires { out.sparseDims; }) {
                out.shape[0] = rows.count();
                out.nnz = nnz;
                out.indices.resize(at(m_coo.sparseDims * nnz));
                out.values.resize(at(nnz * perEntry));
                std::int64_t k = 0;
                for (auto row = rows.begin; row < rows.end; ++row)
                    for (auto n = entriesOfRow(row); n > 0; --n, ++k) {
                        const auto *record = records.data() + k * bytes;
                        out.indices[at(k)] = row - rows.begin;
                        for (int d = 1; d < m_coo.sparseDims; ++d)
                            std::memcpy(&out.indices[at(d * nnz + k)], record + 8 * (d - 1), 8);
                        std::memcpy(out.values.data() + k * perEntry, record + 8 * (m_coo.sparseDims - 1),
                                    at(perEntry) * sizeof(T));
                    }
                if (k != nnz)
                    throw InternalError("CooBandReader::bandOfRecords: the records of its rows");
                // Its indices were checked when it opened: only whether it is coalesced is left.
                out.coalesced = cooIsSortedUnique(out);
            } else {
                throw InternalError("CooBandReader::bandOfRecords: a coo tensor");
            }
        },
        band.storage());
    return band;
}

} // namespace sparsity::core
