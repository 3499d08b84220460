#include "core/io/csc_band_reader.h"

#include "core/io/csc_entry_scan.h"
#include "core/tensor/compressed_tensor.h"
#include "core/util/errors.h"

#include <algorithm>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

} // namespace

CscBandReader::CscBandReader(const H5File &file, const std::string &path, ValidationReport *report)
    : m_file(file), m_path(path), m_outline(readCompressedOutline(file, path, report))
{
    if (m_outline.axis != CompressedAxis::Column || m_outline.shape.size() != 2)
        throw InternalError("CscBandReader: a csc element");
    // Each row's entries, counted in the scan that checks them (I6) and tells I7's notice.
    m_entriesPerRow.assign(at(m_outline.shape[0]), 0);
    scanCscEntries(file, path, m_outline, report, [&](std::int64_t row, std::int64_t, bool) { ++m_entriesPerRow[at(row)]; });
}

Tensor CscBandReader::readRows(RowRange rows) const
{
    if (!rows.within(m_outline.shape[0]))
        throw InternalError("CscBandReader::readRows: rows within the element's");
    const auto columns = m_outline.shape[1];
    const auto &indptr = m_outline.indptr;
    // The band's raw entries (duplicates too), counted when it opened: its rows' runs are sized
    // once and filled in column order, each row's entries then in column order and, within a
    // column, in stored order.
    Buffer<std::int64_t> start(at(rows.count() + 1));
    start[0] = 0;
    for (auto row = rows.begin; row < rows.end; ++row)
        start[at(row - rows.begin + 1)] = start[at(row - rows.begin)] + m_entriesPerRow[at(row)];
    const auto window = cscEntriesPerRead();
    auto band = readCompressedSlices(m_file, m_path, m_outline, {0, 0}); // an empty csc of the compute type
    std::visit(
        [&](auto &out) {
            using T = ValueOf<std::decay_t<decltype(out)>>;
            if constexpr (requires { out.indptr; }) {
                const auto raw = start[at(rows.count())];
                Buffer<std::int64_t> next(start.begin(), start.end() - 1);
                out.indices.resize(at(raw));
                out.values.resize(at(raw));
                for (std::int64_t first = 0; first < columns;) {
                    // Columns whose entries fill a read (one column at least).
                    auto end = first + 1;
                    while (end < columns && indptr[at(end + 1)] - indptr[at(first)] <= window)
                        ++end;
                    const auto part = readCompressedSlices(m_file, m_path, m_outline, {first, end});
                    const auto &slices = std::get<CompressedTensor<T>>(part.storage());
                    for (auto j = first; j < end; ++j)
                        for (auto k = slices.indptr[at(j - first)]; k < slices.indptr[at(j - first + 1)]; ++k) {
                            const auto row = slices.indices[at(k)];
                            if (row < rows.begin || row >= rows.end)
                                continue;
                            auto &slot = next[at(row - rows.begin)];
                            if (slot >= start[at(row - rows.begin + 1)])
                                throw InputError(m_outline.where + ": its entries changed while it was read");
                            out.indices[at(slot)] = j;
                            out.values[at(slot)] = slices.values[at(k)];
                            ++slot;
                        }
                    first = end;
                }
                // Each row's duplicates (adjacent: its columns ascend) summed in stored order,
                // the first kept as it is, as canonicalizeCompressed sums them.
                out.shape = {rows.count(), columns};
                out.axis = CompressedAxis::Row;
                out.indptr.assign(at(rows.count() + 1), 0);
                std::int64_t kept = 0;
                for (std::int64_t r = 0; r < rows.count(); ++r) {
                    if (next[at(r)] != start[at(r + 1)])
                        throw InputError(m_outline.where + ": its entries changed while it was read");
                    const auto rowStart = kept;
                    for (auto k = start[at(r)]; k < start[at(r + 1)]; ++k) {
                        if (kept > rowStart && out.indices[at(kept - 1)] == out.indices[at(k)]) {
                            out.values[at(kept - 1)] += out.values[at(k)];
                            continue;
                        }
                        out.indices[at(kept)] = out.indices[at(k)];
                        out.values[at(kept)] = out.values[at(k)];
                        ++kept;
                    }
                    out.indptr[at(r + 1)] = kept;
                }
                out.indices.resize(at(kept));
                out.values.resize(at(kept));
            } else {
                throw InternalError("CscBandReader::readRows: a compressed tensor");
            }
        },
        band.storage());
    return band;
}

} // namespace sparsity::core
