#include "core/io/coo_row_reader.h"

#include "core/tensor/coo_tensor.h"
#include "core/tensor/sorting.h"
#include "core/util/errors.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Entries' rows read at a time while the rows are scanned.
std::int64_t scanWindow() { return std::max<std::int64_t>(64, cooEntriesPerRead(sizeof(std::int64_t))); }

// One entry's row in this many is sampled: a block's first entry is then found by one read of
// as many rows (32 KiB; fewer under a smaller budget), and a billion entries' samples take
// 2 MiB.
std::int64_t sampleStride() { return std::min<std::int64_t>(4096, scanWindow()); }

// Calls `visit(firstEntry, rows)` for the rows of the entries of element `path`, a window at a
// time, in entry order; stops early when it returns false.
template <class Visit>
void scanRows(const H5File &file, const std::string &path, std::int64_t entries, Visit &&visit)
{
    const auto window = scanWindow();
    for (std::int64_t first = 0; first < entries; first += window) {
        const auto rows = readCooIndices(file, path, {first, std::min(entries, first + window)}, 1);
        if (!visit(first, std::span<const std::int64_t>(rows.data(), rows.size())))
            return;
    }
}

// Every entry's row of `coo` read once, a window at a time: whether they never decrease and lie
// in dim 0 (C4's check of dim 0, which a rising run passes when its first and last rows do), and
// the sampled rows where they rise.
std::shared_ptr<const CooRowScan> scanCooRows(const H5File &file, const CooParts &coo)
{
    auto scan = std::make_shared<CooRowScan>();
    scan->sampleStride = sampleStride();
    scan->ascending = true;
    std::int64_t firstRow = 0, last = 0;
    scanRows(file, coo.path, coo.entries, [&](std::int64_t first, std::span<const std::int64_t> rows) {
        if (first == 0)
            firstRow = last = rows.front();
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const auto entry = first + static_cast<std::int64_t>(k);
            if (rows[k] < last) {
                scan->ascending = false;
                return false;
            }
            last = rows[k];
            if (entry % scan->sampleStride == 0)
                scan->sampledRows.push_back(last);
        }
        return true;
    });
    scan->rowsWithin = scan->ascending && (coo.entries == 0 || (firstRow >= 0 && last < coo.shape[0]));
    if (!scan->ascending)
        scan->sampledRows = {};
    return scan;
}

// The scan of `coo`'s rows its file keeps, made and kept where it keeps none (or one sampled
// under another budget).
std::shared_ptr<const CooRowScan> cooRowScanOf(const H5File &file, const CooParts &coo)
{
    auto scan = file.cooRowScan(coo.path);
    if (!scan || (scan->ascending && scan->sampleStride != sampleStride())) {
        scan = scanCooRows(file, coo);
        file.keepCooRowScan(coo.path, scan);
    }
    return scan;
}

// The file changed under a reader that scanned it, as `what` shows.
InputError rowsChanged(const CooParts &coo, const std::string &what)
{
    return InputError(coo.where + ": the rows of its entries changed while it was read (" + what + ")");
}
// Entry `entry`'s row, `row`, lies `where`.
std::string rowOfEntryText(std::int64_t entry, std::int64_t row, const std::string &where)
{
    return "indices[0, " + std::to_string(entry) + "]=" + std::to_string(row) + " " + where;
}

} // namespace

void checkCooIndices(const H5File &file,
                     const CooParts &coo,
                     const std::function<void(std::int64_t, std::span<const std::int64_t>)> &window,
                     int indexSetsHeld)
{
    // C4's first offender of each dim, found in one scan; the lowest dim's is the whole read's.
    std::vector<std::optional<std::int64_t>> firstBad(at(coo.sparseDims));
    const auto entries = std::max<std::int64_t>(64, cooEntriesPerRead(std::max(1, indexSetsHeld) * coo.sparseDims * 8));
    for (std::int64_t first = 0; first < coo.entries; first += entries) {
        const auto n = std::min(entries, coo.entries - first);
        const auto indices = readCooIndices(file, coo.path, {first, first + n}, coo.sparseDims);
        for (int d = 0; d < coo.sparseDims; ++d)
            for (std::int64_t k = 0; k < n && !firstBad[at(d)]; ++k)
                if (const auto i = indices[at(d * n + k)]; i < 0 || i >= coo.shape[at(d)])
                    firstBad[at(d)] = first + k;
        if (window)
            window(first, indices);
    }
    for (int d = 0; d < coo.sparseDims; ++d)
        if (const auto bad = firstBad[at(d)]) {
            const auto value = readCooIndices(file, coo.path, {*bad, *bad + 1}, d + 1)[at(d)];
            try {
                throw cooIndexOutOfRange(coo.shape, d, *bad, value);
            } catch (const Error &error) {
                rethrowWithContext(error, coo.where);
            }
        }
}

namespace {

// Whether the unmasked coo `element` reads by rows: its parts as a whole read accepts them,
// its first dim sparse, its entries' rows never decreasing. Its parts (none if not).
std::optional<CooParts> rowsAscendingParts(const H5File &file, const ElementInfo &element)
{
    if (element.layout != Layout::Coo || element.masked || element.shape.empty())
        return std::nullopt;
    try {
        // C1 to C3 and the parts' types, as a whole read checks them first.
        auto parts = openCooParts(file, element.path, nullptr);
        if (parts.sparseDims < 1)
            return std::nullopt;
        return cooRowScanOf(file, parts)->ascending ? std::optional(std::move(parts)) : std::nullopt;
    } catch (const Error &) {
        return std::nullopt;
    }
}

} // namespace

bool cooReadableByRows(const H5File &file, const ElementInfo &element)
{
    if (!element.masked)
        return rowsAscendingParts(file, element).has_value();
    if (element.layout != Layout::Coo)
        return false;
    try {
        const auto data = describeElement(file, element.path + "/data");
        const auto mask = describeElement(file, element.path + "/mask");
        if (!data || !mask || mask->shape != element.shape || (mask->dtype != DType::Bool && mask->dtype != DType::UInt8))
            return false;
        const auto dataParts = rowsAscendingParts(file, *data);
        const auto maskParts = dataParts ? rowsAscendingParts(file, *mask) : std::nullopt;
        return maskParts && maskParts->sparseDims == dataParts->sparseDims && maskParts->entries == dataParts->entries;
    } catch (const Error &) {
        return false;
    }
}

CooParts openCooParts(const H5File &file, const std::string &path, ValidationReport *report)
{
    CooParts parts{path, file.where(path), requireElement(file, path).shape};
    readCooEntries(file, path, {0, 0}, report); // the parts' checks, and the conversion's notice
    const auto extent = describeCooEntries(file, path);
    parts.sparseDims = extent.sparseDims;
    parts.entries = extent.entries;
    return parts;
}

namespace {

// The coo that holds `path`'s entries: itself, or a masked_tensor's data.
std::string entriesPathOf(const H5File &file, const std::string &path)
{
    return requireElement(file, path).masked ? path + "/data" : path;
}

// Of a masked_tensor at `path` whose data is `data`: its mask's parts where they can be
// compared with the data's entry for entry (a coo of the same shape, sparse dims and entries);
// none otherwise, and none where its parts are refused (the mask's own checks then say why,
// after the data's, as a whole read's order has it).
std::optional<CooParts> maskComparableWith(const H5File &file, const std::string &path, const CooParts &data)
{
    if (data.path == path)
        return std::nullopt;
    try {
        auto mask = openCooParts(file, requireMaskOf(file, requireElement(file, path), false).path, nullptr);
        if (mask.shape == data.shape && mask.sparseDims == data.sparseDims && mask.entries == data.entries)
            return mask;
    } catch (const Error &) {
    }
    return std::nullopt;
}

} // namespace

CooRowReader::CooRowReader(const H5File &file, const std::string &path, ValidationReport *report)
    : m_file(file), m_coo(openCooParts(file, entriesPathOf(file, path), report))
{
    if (m_coo.path == path) {
        openRows();
        return;
    }
    auto scan = std::make_shared<CooRowScan>();
    scan->sampleStride = sampleStride();
    scan->ascending = scan->rowsWithin = true;
    scan->sampledRows.reserve(at(m_coo.entries / scan->sampleStride + 1));
    // A masked_tensor's mask is compared with the data (M2) in the scan that checks the data's
    // indices: its indices are read once, the data's not again.
    auto sameMask = maskComparableWith(file, path, m_coo);
    // (A negative first row is C4's to report, after the scan, as a whole read reports it.)
    auto last = std::numeric_limits<std::int64_t>::min();
    const auto sets = sameMask ? 2 : 1;
    checkCooIndices(
        file, m_coo,
        [&](std::int64_t first, std::span<const std::int64_t> indices) {
            const auto rows = indices.first(indices.size() / at(m_coo.sparseDims));
            if (sameMask) {
                const RowRange entries{first, first + std::ssize(rows)};
                const auto maskIndices = readCooIndices(file, sameMask->path, entries, sameMask->sparseDims);
                if (!std::ranges::equal(maskIndices, indices))
                    sameMask.reset();
            }
            for (std::size_t k = 0; k < rows.size(); ++k) {
                const auto entry = first + static_cast<std::int64_t>(k), row = rows[k];
                // Read again after cooReadableByRows said they ascend: the file changed since.
                if (row < last)
                    throw rowsChanged(m_coo, rowOfEntryText(entry, row, "after " + std::to_string(last)));
                last = row;
                if (entry % scan->sampleStride == 0)
                    scan->sampledRows.push_back(row);
            }
        },
        sets);
    m_scan = std::move(scan);
    openMask(path, sameMask);
}

void CooRowReader::openRows()
{
    // Its entries' rows as cooReadableByRows scanned them (kept by the file), checked in that
    // scan. The other dims' indices are checked as each block reads them (readRows): a pass over
    // every index fewer, which inflates them again where the file compresses them.
    m_scan = cooRowScanOf(m_file, m_coo);
    if (!m_scan->rowsWithin)
        checkCooIndices(m_file, m_coo); // C4's report
    if (!m_scan->ascending || !m_scan->rowsWithin)
        throw rowsChanged(m_coo, "they no longer ascend");
}

void CooRowReader::openMask(const std::string &path, const std::optional<CooParts> &same)
{
    // The data's indices are checked (C4): a mask of the same shape and indices passes the
    // mask's own checks too. Any other is refused as a whole read refuses it: for its parts
    // and its own indices first (checked by a reader of it), then M1 or M2.
    if (same) {
        m_maskValues.emplace(m_file, same->path + "/values");
        return;
    }
    const auto maskInfo = requireMaskOf(m_file, requireElement(m_file, path), false);
    auto mask = openCooParts(m_file, maskInfo.path, nullptr); // C1 to C3, named by its path
    checkCooIndices(m_file, mask);
    try {
        if (mask.shape != m_coo.shape) // what a whole read's alignMask says of the whole tensors
            throw maskShapeMisfit(m_coo.shape, mask.shape);
        throw maskPatternMisfit(Layout::Coo);
    } catch (const Error &error) {
        rethrowWithContext(error, m_file.where(path));
    }
}

std::int64_t CooRowReader::rowOfEntry(std::int64_t entry) const
{
    return readCooIndices(m_file, m_coo.path, {entry, entry + 1}, 1)[0];
}

std::int64_t CooRowReader::firstEntryOf(std::int64_t row) const
{
    // The first sample at `row` or past it: the entry sought lies after the sample before it.
    const auto &samples = m_scan->sampledRows;
    const auto stride = m_scan->sampleStride;
    const auto sample = std::lower_bound(samples.begin(), samples.end(), row) - samples.begin();
    const auto upTo = std::min(m_coo.entries, static_cast<std::int64_t>(sample) * stride);
    if (sample == 0)
        return 0;
    const auto from = (static_cast<std::int64_t>(sample) - 1) * stride + 1;
    if (from >= upTo)
        return upTo;
    const auto rows = readCooIndices(m_file, m_coo.path, {from, upTo}, 1);
    return from + (std::lower_bound(rows.begin(), rows.end(), row) - rows.begin());
}

std::vector<RowRange> CooRowReader::blocksOfEntries(RowRange span, std::int64_t entries, std::int64_t maxRows) const
{
    std::vector<RowRange> blocks;
    for (auto begin = span.begin; begin < span.end;) {
        const auto budgetEnd = firstEntryOf(begin) + std::max<std::int64_t>(1, entries);
        // The row of the entry past the budget: every row before it ends within the budget
        // (a sampled row would cut one-row blocks whenever the budget is under a sample's
        // stride: a million sparse rows took 79 s).
        auto end = span.end;
        if (budgetEnd < m_coo.entries)
            end = std::min(end, rowOfEntry(budgetEnd));
        end = std::clamp(end, begin + 1, std::min(span.end, begin + std::max<std::int64_t>(1, maxRows)));
        blocks.push_back({begin, end});
        begin = end;
    }
    return blocks;
}

std::int64_t cooEntriesPerRead(std::int64_t bytesPerEntry)
{
    constexpr std::int64_t kMost = std::int64_t{8} << 20;
    const auto bytes = std::min(kMost, wholeTensorBudget().value_or(kMost) / 4);
    return std::max<std::int64_t>(1, bytes / std::max<std::int64_t>(1, bytesPerEntry));
}

std::int64_t CooRowReader::entriesPerRead() const
{
    constexpr auto kIndexBytes = static_cast<std::int64_t>(sizeof(std::int64_t));
    constexpr auto kValueBytes = static_cast<std::int64_t>(sizeof(double));
    return cooEntriesPerRead(m_coo.sparseDims * kIndexBytes + m_coo.valuesPerEntry() * kValueBytes);
}

void CooRowReader::requireIndicesOf(std::span<const std::int64_t> indices,
                                    std::int64_t n,
                                    std::int64_t firstEntry,
                                    RowRange rows) const
{
    for (std::int64_t k = 0; k < n; ++k)
        if (const auto row = indices[at(k)]; row < rows.begin || row >= rows.end || (k > 0 && row < indices[at(k - 1)]))
            throw rowsChanged(m_coo,
                              rowOfEntryText(firstEntry + k, row, "outside rows " + rows.text() + " or below the row before it"));
    for (int d = 1; d < m_coo.sparseDims; ++d)
        for (std::int64_t k = 0; k < n; ++k)
            if (const auto i = indices[at(d * n + k)]; i < 0 || i >= m_coo.shape[at(d)]) {
                // C4's report is a whole read's: the first offender of the lowest dim of all.
                checkCooIndices(m_file, m_coo);
                throw rowsChanged(m_coo, "indices[" + std::to_string(d) + ", " + std::to_string(firstEntry + k)
                                             + "]=" + std::to_string(i) + " out of range as read, not as scanned again");
            }
}

Tensor CooRowReader::readRows(RowRange rows) const
{
    if (!rows.within(m_coo.shape[0]))
        throw InternalError("CooRowReader::readRows: rows within the element's");
    const RowRange entries{firstEntryOf(rows.begin), firstEntryOf(rows.end)};
    auto part = readCooEntries(m_file, m_coo.path, entries);
    std::visit(
        [&](auto &t) {
            if constexpr (requires { t.sparseDims; }) {
                requireIndicesOf(t.indices, t.nnz, entries.begin, rows);
                t.coalesced = cooIsSortedUnique(t);
                for (std::int64_t k = 0; k < t.nnz; ++k)
                    t.indices[at(k)] -= rows.begin; // dim 0's, first in the dim-major indices
                t.shape[0] = rows.count();
            } else {
                throw InternalError("CooRowReader::readRows: a coo tensor");
            }
        },
        part.storage());
    if (!m_maskValues)
        return part;
    // The mask's values of the same entries: a byte each, 0 or 1 as a whole read's alignMask
    // makes them.
    Mask specified(at(entries.count() * m_coo.valuesPerEntry()));
    m_maskValues->readRows(entries.begin, entries.end, specified.data());
    for (auto &bit : specified)
        bit = bit != 0;
    return Tensor(std::move(part.storage()), std::move(specified));
}

Buffer<std::int64_t> CooRowReader::readRowIndices(RowRange rows) const
{
    if (!rows.within(m_coo.shape[0]))
        throw InternalError("CooRowReader::readRowIndices: rows within the element's");
    const RowRange entries{firstEntryOf(rows.begin), firstEntryOf(rows.end)};
    auto indices = readCooIndices(m_file, m_coo.path, entries, m_coo.sparseDims);
    requireIndicesOf(indices, entries.count(), entries.begin, rows);
    for (std::int64_t k = 0; k < entries.count(); ++k)
        indices[at(k)] -= rows.begin;
    return indices;
}

} // namespace sparsity::core
