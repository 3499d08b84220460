#include "core/pipeline/densified_rows.h"

#include "core/io/coo_band_reader.h"
#include "core/io/csc_band_reader.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/coo_rows_exchange.h"
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/dtype.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <numeric>

namespace sparsity::core {

namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Of a band (a csr, or a coo of its rows), the values its rows store, summed from its first
// (one more than its rows): as its storedCount() counts them, a hybrid coo's entry a row of them.
std::vector<std::int64_t> storedPerRowSummed(const Tensor &band)
{
    std::vector<std::int64_t> summed(at(band.shape()[0] + 1), 0);
    band.visit([&](const auto &t) {
        if constexpr (requires { t.indptr; }) {
            std::copy(t.indptr.begin(), t.indptr.end(), summed.begin());
        } else if constexpr (requires { t.sparseDims; }) {
            const auto perEntry = t.nnz == 0 ? 0 : static_cast<std::int64_t>(t.values.size()) / t.nnz;
            for (std::int64_t k = 0; k < t.nnz; ++k)
                summed[at(t.index(0, k) + 1)] += perEntry;
            std::partial_sum(summed.begin(), summed.end(), summed.begin());
        } else {
            throw InternalError("storedPerRowSummed: a band of a sparse element");
        }
    });
    return summed;
}

// Whether a band reader, densified, takes `element`: unmasked (a bool one is read in the compute
// type, float32, as a whole read reads it).
bool bandReaderTakes(const ElementInfo &element) { return !element.masked; }

} // namespace

bool plainDense(const ElementInfo &element)
{
    return element.layout == Layout::Dense && !element.masked && element.dtype != DType::Bool;
}

RowRead rowReadOf(const H5File &file, const ElementInfo &element)
{
    if (plainDense(element))
        return RowRead::Dense;
    return rowSparseReadableByRows(file, element) || readableByRows(file, element) || cooReadableByRows(file, element)
               ? RowRead::ByRows
               : RowRead::Whole;
}

bool readableByBands(const H5File &file, const ElementInfo &element)
{
    return bandReaderTakes(element) && storedEntriesOf(file, element).has_value();
}

RowRead densifiedReadOf(const H5File &file, const ElementInfo &element, std::int64_t budget)
{
    const auto how = rowReadOf(file, element);
    const auto stored = how == RowRead::Whole ? storedEntriesOf(file, element) : std::nullopt;
    if (!stored)
        return how;
    // Held whole: it as read, and coalesced (a value and an 8-byte index each).
    const auto read = stored->readBytes();
    const auto coalesced = stored->coalescedBytes(dtypeSize(computeTypeFor(element.dtype)));
    // Across ranks it is read whole, each rank its rows (readOfOwnRows): bands would have every
    // rank scan all of it for each of its bands, or once to spill its rows.
    const bool fitsWhole = read <= budget && coalesced <= budget - read;
    return !fitsWhole && ranks().isSolo() && bandReaderTakes(element) ? RowRead::ByBands : how;
}

std::unique_ptr<RowBandReader> openBandReader(const H5File &file, const std::string &path, ValidationReport *report)
{
    if (requireElement(file, path).layout == Layout::Csc)
        return std::make_unique<CscBandReader>(file, path, report);
    return std::make_unique<CooBandReader>(file, path, report);
}

std::int64_t bandBytesFor(const H5File &file, const ElementInfo &element, std::int64_t most)
{
    if (most <= kSpilledBandBytes || !ranks().isSolo())
        return most;
    const auto stored = bandReaderTakes(element) ? storedEntriesOf(file, element) : std::nullopt;
    return stored ? bandBytesFor(*stored, most) : most;
}

std::int64_t bandBytesFor(const StoredEntries &stored, std::int64_t most)
{
    if (most <= kSpilledBandBytes || !ranks().isSolo())
        return most;
    // In more than kMostScannedBands bands of kSpilledBandBytes (an entry's bytes as read a value
    // at least: fewer bands than there will be), where the spill (about its bytes as read) fits.
    const auto read = bytesFor(stored.entries, static_cast<std::size_t>(stored.entryBytes));
    return read > (kMostScannedBands + 1) * kSpilledBandBytes && spillFolderHolds(read + read / 8) ? kSpilledBandBytes : most;
}

std::int64_t bandShareLeft(std::int64_t bytes, std::int64_t counts, std::int64_t most)
{
    return std::min(most, std::max((bytes - counts) / 2, kLeastBandBytes));
}

void requireRoomToCoalesce(std::int64_t heldBefore, std::int64_t bytes, const std::string &where)
{
    requireWithinBudget(heldBefore + bytes, where,
                        heldBefore > 0 ? "coalescing it beside the elements read whole before it" : "coalescing it");
}

void requireRoomToCountRows(std::int64_t heldBefore, std::int64_t rows, const std::string &where)
{
    requireWithinBudget(heldBefore + rowCountBytes(rows), where,
                        heldBefore > 0 ? "counting its rows' entries beside the elements held before it"
                                       : "counting its rows' entries");
}

template <class T>
std::unique_ptr<DensifiedRows<T>>
openOnEveryRank(const H5File &file, const std::string &path, RowRead how, ValidationReport *report)
{
    std::unique_ptr<DensifiedRows<T>> reader;
    agreeOn(ranks(), [&] { reader = std::make_unique<DensifiedRows<T>>(file, path, how, report); });
    return reader;
}

template <class T>
DensifiedRows<T>::DensifiedRows(const H5File &file, std::string path, RowRead how, ValidationReport *report)
    : DensifiedRows(file, std::move(path), how, report, nullptr)
{
}

template <class T>
DensifiedRows<T>::DensifiedRows(
    const H5File &file, std::string path, RowRead how, ValidationReport *report, std::shared_ptr<RowBandReader> sharedBands)
    : m_file(file), m_path(std::move(path)), m_how(how), m_report(report), m_repairs(report)
{
    const auto element = requireElement(file, m_path);
    m_shape = element.shape;
    m_masked = element.masked;
    if (how == RowRead::Dense) {
        m_dense.emplace(file, m_path);
        noteConversion(report, file.where(m_path), element.dtype);
        m_report = nullptr;
    } else if (how == RowRead::ByRows && element.layout == Layout::RowSparse) {
        m_rowSparse.emplace(file, m_path, report);
        m_report = nullptr;
    } else if (how == RowRead::ByBands && sharedBands) {
        m_bands = std::move(sharedBands);
        m_twin = true;
        m_report = nullptr;
    } else if (how == RowRead::ByBands) {
        requireRoomToCountRows(0, m_shape.empty() ? 0 : m_shape[0], file.where(m_path));
        m_bands = openBandReader(file, m_path, report);
        m_report = nullptr;
    } else if (how == RowRead::ByRows && element.layout == Layout::Coo) {
        m_coo.emplace(file, m_path, report);
        m_report = nullptr;
    } else if (how == RowRead::ByRows && element.masked) {
        m_maskedBoxes = maskedReadableByBoxes(file, element);
    } else if (how == RowRead::ByRows) { // a csr element
        // Said before any block, as a whole read says it: a rank that reads no rows, or an
        // element of no rows, says it too.
        noteConversion(report, file.where(m_path), element.dtype);
        m_conversionSaid = true;
    }
}

template <class T>
std::unique_ptr<DensifiedRows<T>> DensifiedRows<T>::quietTwin() const
{
    if (m_how != RowRead::ByBands)
        return openOnEveryRank<T>(m_file, m_path, m_how, nullptr);
    // Private constructor: not through make_unique. Read by bands in one process (densifiedReadOf).
    std::unique_ptr<DensifiedRows<T>> twin(new DensifiedRows<T>(m_file, m_path, m_how, nullptr, m_bands));
    if (m_bandBytes > 0)
        twin->holdBands(m_bandBytes);
    return twin;
}

template <class T>
void DensifiedRows<T>::readWhole(std::span<const RowRange> rowsOfRanks, std::int64_t heldBefore)
{
    if (m_how != RowRead::Whole)
        return;
    coalesce(readOfOwnRows(ranks(), m_file, m_path, rowsOfRanks, m_report), heldBefore);
}

template <class T>
void DensifiedRows<T>::readWholeOnEveryRank(std::int64_t heldBefore)
{
    if (m_how != RowRead::Whole)
        return;
    coalesce(agreeOn(ranks(), [&] { return readTensor(m_file, m_path, m_report); }), heldBefore);
}

template <class T>
void DensifiedRows<T>::coalesce(const Tensor &element, std::int64_t heldBefore)
{
    m_report = nullptr;
    m_source = agreeOn(ranks(), [&] {
        requireRoomToCoalesce(heldBefore, core::heldBytes(element) + coalescedBytes(element, Semantics::Dense, sizeof(T)),
                              m_file.where(m_path));
        return std::optional<UpdatePattern<T>>(fillSource<T>(element, Semantics::Dense));
    });
}

template <class T>
bool DensifiedRows<T>::filledFromCoalesced() const
{
    return m_how == RowRead::Whole || (m_how == RowRead::ByBands && m_bandBytes > 0);
}

template <class T>
void DensifiedRows<T>::holdBands(std::int64_t bytes)
{
    if (m_how != RowRead::ByBands)
        throw InternalError("DensifiedRows::holdBands: an element read by bands");
    // No more than the whole element takes as one band: what is left is the blocks'.
    const auto values = bytesFor(m_bands->entries(), static_cast<std::size_t>(m_bands->valuesPerEntry()));
    const auto whole = saturatedSum(bytesFor(values, static_cast<std::size_t>(kBandBytesPerValue)),
                                    bytesFor(m_shape[0], static_cast<std::size_t>(kBandBytesPerRow)));
    m_bandBytes = std::max<std::int64_t>(1, std::min(bytes, whole));
    // Rows read in ascending order read each band once: past kMostScannedBands of them, spilled sorted
    // by row first, in the band's memory (nothing is held yet).
    const RowRange all{0, m_shape[0]};
    planBandReads(m_bands->bandsOfEntries(all, bandEntries(), bandRows()), m_bandBytes);
}

template <class T>
std::int64_t DensifiedRows<T>::bandEntries() const
{
    return std::max<std::int64_t>(1, m_bandBytes / kBandBytesPerValue / m_bands->valuesPerEntry());
}

template <class T>
std::int64_t DensifiedRows<T>::bandRows() const
{
    return std::max<std::int64_t>(1, m_bandBytes / kBandBytesPerRow);
}

template <class T>
void DensifiedRows<T>::planBandReads(std::span<const RowRange> bands, std::int64_t memoryBytes)
{
    if (m_how != RowRead::ByBands || bands.empty())
        return;
    m_bands->planReads({bands.front().begin, bands.back().end}, std::ssize(bands), memoryBytes);
}

template <class T>
const UpdatePattern<T> &DensifiedRows<T>::coalescedHolding(RowRange rows)
{
    if (m_how == RowRead::Whole) {
        if (!m_source)
            throw InternalError("DensifiedRows: an element read whole is read (readWhole) before its rows");
        return *m_source;
    }
    if (m_bandBytes == 0)
        throw InternalError("DensifiedRows: an element read by bands is given their size (holdBands) before its rows");
    if (!m_band || rows.begin < m_bandRows.begin || rows.end > m_bandRows.end) {
        m_band.reset(); // one band held at a time
        m_bandRows = m_bands->bandFrom(rows.begin, m_shape[0], bandEntries(), bandRows());
        m_bandRows.end = std::max(m_bandRows.end, rows.end);
        const auto band = m_bands->readRows(m_bandRows);
        m_bandStored = storedPerRowSummed(band);
        // Coalesced as the whole element is: each row's entries summed in the order stored.
        m_band = fillSource<T>(band, Semantics::Dense);
    }
    return *m_band;
}

template <class T>
DenseTensor<T> DensifiedRows<T>::rows(RowRange rows, Buffer<T> reuse)
{
    Shape shape = m_shape;
    shape[0] = rows.count();
    if (filledFromCoalesced()) {
        const auto &coalesced = coalescedHolding(rows);
        const auto first = m_how == RowRead::Whole ? 0 : m_bandRows.begin;
        if (m_how == RowRead::ByBands)
            m_storedRead += m_bandStored[at(rows.end - first)] - m_bandStored[at(rows.begin - first)];
        // Its stored values added to 0 in stored order: the bits densifying the whole gives.
        auto filled = filledPattern(patternInRows(coalesced, {rows.begin - first, rows.end - first}), Semantics::Dense, nullptr,
                                    numel(shape));
        return {shape, std::move(filled.owned)};
    }
    reuse.resize(static_cast<std::size_t>(numel(shape)));
    DenseTensor<T> block{shape, std::move(reuse)};
    readRows(rows, block.values.data());
    return block;
}

template <class T>
void DensifiedRows<T>::cooRowsInto(RowRange rows, T *into)
{
    // A row of a coo may store far more than its dense size (an entry's coordinates, and its
    // duplicates): the block's rows are read in pieces of what the budget holds, each
    // densified into its place.
    const auto width = numel(m_shape, 1, m_shape.size());
    for (const auto &piece : m_coo->blocksOfEntries(rows, m_coo->entriesPerRead(), rows.count()))
        toDenseInto(storedRows(piece), into + (piece.begin - rows.begin) * width);
}

template <class T>
Tensor DensifiedRows<T>::storedRows(RowRange rows)
{
    if (m_how != RowRead::ByRows && m_how != RowRead::ByBands)
        throw InternalError("DensifiedRows::storedRows: an element read by rows");
    ValidationReport found;
    auto part = m_rowSparse ? m_rowSparse->readRows(rows)
                : m_coo     ? m_coo->readRows(rows)
                : m_bands   ? m_bands->readRows(rows)
                            : readTensor(m_file, m_path, &found, rows);
    takeNotes(found, rows);
    m_storedRead += part.storedCount();
    return part;
}

template <class T>
void DensifiedRows<T>::takeNotes(const ValidationReport &found, RowRange rows)
{
    const bool unread = rows.begin >= m_notedTo;
    m_notedTo = std::max(m_notedTo, rows.end);
    ValidationReport others; // the first block's (less a conversion said before it)
    for (const auto &finding : found.findings()) {
        if (RepairNotices::isRepair(finding) && unread)
            m_repairs.tell(finding);
        else if (!RepairNotices::isRepair(finding))
            others.add(finding);
    }
    if (m_report && m_conversionSaid)
        appendAllButConversions(*m_report, others);
    else if (m_report)
        m_report->append(others);
    m_report = nullptr;
}

template <class T>
void DensifiedRows<T>::gatherRepairs()
{
    if (m_how == RowRead::ByRows)
        m_repairs.gatherAcrossRanks();
}

template <class T>
Tensor DensifiedRows<T>::maskedPart(RowRange rows)
{
    if (!m_masked || m_how != RowRead::ByRows)
        throw InternalError("DensifiedRows: the specified elements of a masked_tensor read by rows");
    return storedRows(rows);
}

template <class T>
void DensifiedRows<T>::readRows(RowRange rows, T *into, std::uint8_t *specified)
{
    if (specified) {
        toDenseWithSpecifiedInto(maskedPart(rows), into, specified);
        return;
    }
    if (m_dense) {
        m_dense->readRows(rows.begin, rows.end, into);
        return;
    }
    if (filledFromCoalesced()) {
        const auto block = this->rows(rows);
        std::copy(block.values.begin(), block.values.end(), into);
        return;
    }
    // Densified straight into the block: no buffer of the block's size of its own.
    if (m_coo)
        cooRowsInto(rows, into);
    else
        toDenseInto(storedRows(rows), into);
}

template <class T>
void DensifiedRows<T>::readBox(RowRange rows, RowRange columns, T *into, std::uint8_t *specified)
{
    if (m_dense && !specified) {
        m_dense->readBox(rows, columns, into);
        return;
    }
    if (m_shape.size() != 2 || !columns.within(m_shape[1]))
        throw InternalError("DensifiedRows::readBox: columns of a 2-d element");
    if (specified && m_maskedBoxes && !m_report) {
        if (!m_maskedBoxReader)
            m_maskedBoxReader.emplace(m_file, m_path);
        m_maskedBoxReader->readBox(rows, columns, into, specified);
        return;
    }
    // Densified a few rows at a time, as many as the box holds values (one at least): the box
    // is sized to the budget, and its rows' whole width can be far wider than its columns.
    const auto width = m_shape[1];
    const auto step = std::max<std::int64_t>(1, columns.count() * rows.count() / std::max<std::int64_t>(1, width));
    for (auto first = rows.begin; first < rows.end; first += step) {
        const RowRange part{first, std::min(rows.end, first + step)};
        const auto at = (first - rows.begin) * columns.count();
        const auto copyColumns = [&](const auto &from, auto *to) {
            for (std::int64_t r = 0; r < part.count(); ++r)
                std::copy_n(from.begin() + r * width + columns.begin, columns.count(), to + at + r * columns.count());
        };
        if (specified) {
            const auto values = static_cast<std::size_t>(part.count() * width);
            Buffer<T> dense(values);
            Mask mask(values);
            toDenseWithSpecifiedInto(maskedPart(part), dense.data(), mask.data());
            copyColumns(dense, into);
            copyColumns(mask, specified);
        } else {
            copyColumns(this->rows(part).values, into);
        }
    }
}

template <class T>
std::int64_t DensifiedRows<T>::heldBytes() const
{
    if (m_how == RowRead::ByBands)
        return m_bandBytes + (m_twin ? 0 : m_bands->heldBytes());
    if (!m_source)
        return 0;
    return static_cast<std::int64_t>(m_source->owned.size() * sizeof(T)
                                     + (m_source->rows.size() + m_source->elements.size()) * sizeof(std::int64_t));
}

template class DensifiedRows<float>;
template class DensifiedRows<double>;
template std::unique_ptr<DensifiedRows<float>>
openOnEveryRank<float>(const H5File &, const std::string &, RowRead, ValidationReport *);
template std::unique_ptr<DensifiedRows<double>>
openOnEveryRank<double>(const H5File &, const std::string &, RowRead, ValidationReport *);

} // namespace sparsity::core
