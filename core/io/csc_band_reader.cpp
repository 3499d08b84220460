#include "core/io/csc_band_reader.h"

#include "core/io/csc_entry_scan.h"
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/dtype.h"
#include "core/util/errors.h"

#include <algorithm>
#include <cstring>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

} // namespace

CscBandReader::CscBandReader(const H5File &file, const std::string &path, ValidationReport *report)
    : RowBandReader(report), m_file(file), m_path(path), m_outline(readCompressedOutline(file, path, report))
{
    if (m_outline.axis != CompressedAxis::Column || m_outline.shape.size() != 2)
        throw InternalError("CscBandReader: a csc element");
    // Each row's entries, counted in the scan that checks them (I6) and tells I7's notice.
    m_counts = RowCounts(m_outline.shape[0]);
    scanCscEntries(file, path, m_outline, report, [&](std::int64_t row, std::int64_t, bool) { m_counts.add(row); });
    m_counts.finish();
    m_valueBytes = static_cast<std::int64_t>(dtypeSize(emptyBand().dtype()));
}

Tensor CscBandReader::emptyBand() const { return readCompressedSlices(m_file, m_path, m_outline, {0, 0}); }

void CscBandReader::scanRecords(const RecordSink &take) const
{
    const auto columns = m_outline.shape[1];
    const auto &indptr = m_outline.indptr;
    const auto bytes = recordBytes();
    const auto window = cscEntriesPerRead();
    std::vector<std::byte> records;
    for (std::int64_t first = 0; first < columns;) {
        // Columns whose entries fill a read (one column at least).
        auto end = first + 1;
        while (end < columns && indptr[at(end + 1)] - indptr[at(first)] <= window)
            ++end;
        const auto part = readCompressedSlices(m_file, m_path, m_outline, {first, end});
        part.visit([&](const auto &slices) {
            if constexpr (requires { slices.indptr; }) {
                using T = ValueOf<std::decay_t<decltype(slices)>>;
                const auto count = slices.indptr[at(end - first)];
                records.resize(at(count * bytes));
                for (auto j = first; j < end; ++j)
                    for (auto k = slices.indptr[at(j - first)]; k < slices.indptr[at(j - first + 1)]; ++k) {
                        std::memcpy(records.data() + k * bytes, &j, 8);
                        std::memcpy(records.data() + k * bytes + 8, &slices.values[at(k)], sizeof(T));
                    }
                take({slices.indices.data(), at(count)}, records.data()); // the entries' rows
            } else {
                throw InternalError("CscBandReader::scanRecords: a compressed tensor");
            }
        });
        first = end;
    }
}

Tensor CscBandReader::bandOfRecords(RowRange rows, std::span<const std::byte> records) const
{
    const auto bytes = recordBytes();
    auto band = emptyBand();
    std::visit(
        [&](auto &out) {
            using T = ValueOf<std::decay_t<decltype(out)>>;
            if constexpr (requires { out.indptr; }) {
                // Each row's records come in column order (a scan's order) and, within a column,
                // in stored order: its duplicates (adjacent) are summed in stored order, the first
                // kept as it is, as canonicalizeCompressed sums them.
                out.shape = {rows.count(), m_outline.shape[1]};
                out.axis = CompressedAxis::Row;
                out.indptr.assign(at(rows.count() + 1), 0);
                out.indices.resize(records.size() / at(bytes));
                out.values.resize(records.size() / at(bytes));
                std::int64_t k = 0, kept = 0;
                for (std::int64_t r = 0; r < rows.count(); ++r) {
                    const auto rowStart = kept;
                    for (auto n = entriesOfRow(rows.begin + r); n > 0; --n, ++k) {
                        std::int64_t column;
                        T value;
                        std::memcpy(&column, records.data() + k * bytes, 8);
                        std::memcpy(&value, records.data() + k * bytes + 8, sizeof(T));
                        if (kept > rowStart && out.indices[at(kept - 1)] == column) {
                            out.values[at(kept - 1)] += value;
                            continue;
                        }
                        out.indices[at(kept)] = column;
                        out.values[at(kept)] = value;
                        ++kept;
                    }
                    out.indptr[at(r + 1)] = kept;
                }
                out.indices.resize(at(kept));
                out.values.resize(at(kept));
            } else {
                throw InternalError("CscBandReader::bandOfRecords: a compressed tensor");
            }
        },
        band.storage());
    return band;
}

} // namespace sparsity::core
