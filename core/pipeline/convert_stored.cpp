#include "core/pipeline/convert_stored.h"

#include "core/io/h5_filters.h"
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/io/row_band_reader.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/csc_of_row_blocks.h"
#include "core/pipeline/densified_rows.h"
#include "core/tensor/conversions.h"
#include "core/tensor/sorting.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <optional>
#include <span>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Held per stored value while a block of a sparse element is converted: the block as read
// (value, int64 index), its conversion (value, up to two int64 coordinates), its positions and
// the writer's copy of them (value, position, coordinates).
constexpr std::int64_t kBytesPerStoredValue = 96;
// Held per row of a band so converted: the read's (kReadBytesPerRow), the counting pass's
// count of the row, and a csr conversion's indptr.
constexpr std::int64_t kBytesPerBandRow = kReadBytesPerRow + 16;

// Rows `span` of a csr element in blocks storing about `entries` values each (one row at least,
// at most `maxRows` rows), cut from its indptr read a window at a time: rows whose values vary
// widely held as much as the widest block. Where indptr is unusable, blocks of `maxRows`:
// reading them refuses the element as a whole read does.
std::vector<RowRange>
csrBlocksOfEntries(const H5File &input, const ElementInfo &e, RowRange span, std::int64_t entries, std::int64_t maxRows)
{
    constexpr std::int64_t kWindow = std::int64_t{1} << 20; // pointers read at a time: 8 MiB
    std::vector<RowRange> blocks;
    std::int64_t begin = span.begin, start = 0; // the open block's first row, and its pointer
    bool usable = true;
    try {
        for (std::int64_t window = span.begin; usable && window < span.end; window += kWindow) {
            const auto last = std::min(span.end, window + kWindow);
            const auto indptr = readCompressedIndptr(input, e.path, {window, last + 1});
            usable = static_cast<std::int64_t>(indptr.size()) == last + 1 - window;
            if (!usable)
                break;
            if (window == span.begin)
                start = indptr.front();
            // A decreasing indptr adds no values: its rows are cut by maxRows.
            for (std::int64_t row = window; row < last; ++row) {
                const auto pointer = indptr[at(row + 1 - window)];
                if (row + 1 - begin >= maxRows || pointer - start >= entries) {
                    blocks.push_back({begin, row + 1});
                    begin = row + 1;
                    start = pointer;
                }
            }
        }
    } catch (const Error &) {
        usable = false;
    }
    if (!usable) {
        blocks.clear();
        for (begin = span.begin; begin + maxRows < span.end; begin += maxRows)
            blocks.push_back({begin, begin + maxRows});
    }
    if (begin < span.end)
        blocks.push_back({begin, span.end});
    return blocks;
}

// Whether `part` is a coo whose entries are sorted and unique (read so, or found so when read):
// its conversion into csr keeps its entries (each entry's values, if hybrid) as they are.
bool coalescedCoo(const Tensor &part)
{
    return part.visit([](const auto &t) {
        if constexpr (requires { t.sparseDims; })
            return t.coalesced;
        else
            return false;
    });
}

// Adds to `counts` what the rows of a coo block's entries keep converted into `target`, where
// the entries alone tell it: a row_sparse output every value of each row an entry lies in, a
// csr output each entry's `perEntry` values (the entries coalesced). `rows`: the entries'
// dim-0 indices, numbered from the block's first row.
void countRowsOfEntries(
    std::span<const std::int64_t> rows, Layout target, std::int64_t width, std::int64_t perEntry, std::int64_t *counts)
{
    for (const auto row : rows)
        counts[row] = target == Layout::RowSparse ? width : counts[row] + perEntry;
}

// What each of a coo block's rows keeps converted into `target` (csr or row_sparse), into
// `counts` (one per row of the block, zero before): a row_sparse output every value of each
// row an entry lies in, a csr output each entry's values of a coalesced block, or else what
// the block's conversion stores (its duplicates summed there).
void countCooRows(const Tensor &part, Layout target, std::int64_t width, std::int64_t *counts)
{
    if (target != Layout::RowSparse && !coalescedCoo(part)) {
        toLayout(part, target).visit([&](const auto &t) {
            for (const auto position : storedLinearIndices(t))
                ++counts[position / width];
        });
        return;
    }
    part.visit([&](const auto &t) {
        if constexpr (requires { t.sparseDims; }) // dim 0's indices come first: the rows
            countRowsOfEntries(std::span(t.indices).first(at(t.nnz)), target, width, t.denseSize(), counts);
        else
            throw InternalError("countCooRows: a coo block");
    });
}

// What each of rows `rows` of a coo element read by rows keeps converted into `target` (csr or
// row_sparse), into `counts` as countCooRows counts it, from the entries' indices alone where
// they tell it: a row_sparse output every value of each row an entry lies in, a csr output each
// entry's values when the entries are coalesced. Returns the values the rows store; none, and
// `counts` untouched, where the entries are not coalesced and the output is csr (their duplicates
// are summed by the conversion, which the caller then makes). The values are not read: a count
// pass over a compressed coo inflated them for nothing.
std::optional<std::int64_t>
countCooRowsByIndices(const CooRowReader &coo, RowRange rows, Layout target, std::int64_t width, std::int64_t *counts)
{
    const auto &parts = coo.parts();
    const auto indices = coo.readRowIndices(rows);
    const auto nnz = static_cast<std::int64_t>(indices.size()) / parts.sparseDims;
    if (target != Layout::RowSparse && !cooIndicesSortedUnique(indices, nnz, parts.shape, parts.sparseDims))
        return std::nullopt;
    countRowsOfEntries(std::span(indices).first(at(nnz)), target, width, parts.valuesPerEntry(), counts);
    return nnz * parts.valuesPerEntry();
}

// The blocks of a csr, coo or row_sparse element's rows `span` (a csc's: its bands): each holds about
// min(budget, 8 MiB) of stored values at kBytesPerStoredValue each (a row_sparse row, or one a
// row_sparse output keeps, held whole; one row at least); a band `bandBytes` (convertBandBytes's).
template <class T>
std::vector<RowRange> blocksOf(const H5File &input,
                               const ElementInfo &e,
                               const DensifiedRows<T> &reader,
                               Layout target,
                               RowRange span,
                               std::int64_t budget,
                               std::int64_t bandBytes)
{
    const auto width = numel(e.shape, 1, e.shape.size());
    const auto entries = std::max<std::int64_t>(1, std::min(budget, kConvertBlockBytes) / kBytesPerStoredValue);
    const bool wholeRows = e.layout == Layout::RowSparse || target == Layout::RowSparse;
    const auto maxRows = std::max<std::int64_t>(1, wholeRows ? entries / std::max<std::int64_t>(1, width) : entries);
    if (e.layout == Layout::Csr)
        return csrBlocksOfEntries(input, e, span, entries, maxRows);
    if (const auto *coo = reader.cooReader()) // an entry holds numel(shape[sparse dims:]) values
        return coo->blocksOfEntries(span, std::max<std::int64_t>(1, entries / coo->parts().valuesPerEntry()), maxRows);
    // Each band a scan of the whole element, or a read of its spill: as few as the band's bytes
    // hold (not 8 MiB's), in values and in rows.
    if (const auto *bands = reader.bands()) {
        const auto values = std::max<std::int64_t>(1, bandBytes / kBytesPerStoredValue);
        const auto rows = std::max<std::int64_t>(1, bandBytes / kBytesPerBandRow);
        return bands->bandsOfEntries(
            span, std::max<std::int64_t>(1, values / bands->valuesPerEntry()),
            wholeRows ? std::min(rows, std::max<std::int64_t>(1, values / std::max<std::int64_t>(1, width))) : rows);
    }
    std::vector<RowRange> blocks;
    for (std::int64_t row = span.begin; row < span.end; row += maxRows)
        blocks.push_back({row, std::min(span.end, row + maxRows)});
    return blocks;
}

// Into csr, coo or row_sparse, whose conversions keep each row to itself: a first pass counts
// what each row's conversion stores; the second writes the blocks.
template <class T>
ConvertedElement convertByRows(const ConvertRequest &request,
                               const H5File &input,
                               const ElementInfo &e,
                               H5File &output,
                               ValidationReport &report,
                               std::int64_t budget,
                               std::int64_t bandBytes)
{
    // Across ranks each converts its own contiguous rows, in as many rounds of (collective)
    // writes as the rank with the most blocks; past its last block a rank writes none.
    const auto &group = ranks();
    const auto opened = openOnEveryRank<T>(input, e.path, bandBytes > 0 ? RowRead::ByBands : RowRead::ByRows, &report);
    auto &reader = *opened;
    if (bandBytes > 0) // beside the counts of its rows, which the reader holds now
        bandBytes = bandShareLeft(budget, reader.heldBytes(), bandBytes);
    const auto width = numel(e.shape, 1, e.shape.size());
    const auto mine = rowsOfRank(e.shape[0], 1, group.rank(), group.size());
    std::vector<RowRange> blocks;
    RowCounts storedPerRow(mine.count());
    ConvertedElement result{e.path, 0, 0};
    // Blocks the first pass read whole, kept for the second where reading the element again
    // runs its filters again (a compressed element): the first blocks, as many as half the budget
    // holds. A coo's others are counted from their indices alone.
    const std::int64_t holdBytes = storedThroughFilters(input, e.path) ? budget / 2 : 0;
    std::vector<std::optional<Tensor>> held; // of each block
    // What each row's conversion stores, from what the element stores in it: a csr row its
    // entries (duplicates summed), a row_sparse row every value; a row stored whole (row_sparse
    // either side) every value. Counted from the rows' structure, before any conversion; a coo
    // block's from its indices alone where they tell it (countCooRowsByIndices), else from its
    // conversion (its duplicates are summed there).
    agreeOn(group, [&] {
        blocks = blocksOf(input, e, reader, request.layout, mine, budget, bandBytes);
        reader.planBandReads(blocks, bandBytes); // a band's share, held by nothing yet
        held.resize(blocks.size());
        if (e.layout == Layout::RowSparse) {
            for (const auto row : reader.storedRowNumbers())
                if (row >= mine.begin && row < mine.end) {
                    storedPerRow.set(row - mine.begin, width);
                    result.storedBefore += width;
                }
            return;
        }
        std::int64_t heldTotal = 0;
        bool holding = holdBytes > 0;     // until a block does not fit
        std::vector<std::int64_t> counts; // the block's rows'
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            const auto &block = blocks[b];
            counts.assign(at(block.count()), 0);
            const auto *coo = reader.cooReader();
            if (const auto stored =
                    coo && !holding ? countCooRowsByIndices(*coo, block, request.layout, width, counts.data()) : std::nullopt) {
                result.storedBefore += *stored;
                storedPerRow.setRows(block.begin - mine.begin, counts);
                continue;
            }
            auto part = reader.storedRows(block);
            result.storedBefore += part.storedCount();
            if (e.layout == Layout::Coo) {
                countCooRows(part, request.layout, width, counts.data());
            } else {
                part.visit([&](const auto &t) {
                    if constexpr (requires { t.indptr; })
                        for (std::int64_t r = 0; r < block.count(); ++r) {
                            const auto stored = t.indptr[at(r + 1)] - t.indptr[at(r)];
                            counts[at(r)] = request.layout == Layout::RowSparse && stored > 0 ? width : stored;
                        }
                    else
                        throw InternalError("convertStored: a csr block");
                });
            }
            storedPerRow.setRows(block.begin - mine.begin, counts);
            if (holding) {
                heldTotal += heldBytes(part);
                holding = heldTotal <= holdBytes;
                if (holding)
                    held[b] = std::move(part);
            }
        }
    });
    result.storedBefore = group.sum(result.storedBefore);
    double rounds[] = {static_cast<double>(blocks.size())};
    group.max(rounds);
    // A row_sparse element converts into a coo of its stored rows, each indexed by its row.
    const auto cooIndex =
        e.layout == Layout::RowSparse ? SparseRowStreamWriter::CooIndex::Rows : SparseRowStreamWriter::CooIndex::EveryDim;
    SparseRowStreamWriter writer(output, e.path, request.layout, e.shape, dtypeOf<T>(),
                                 sparseRowCountsAcrossRanks(mine.begin, std::move(storedPerRow)), request.writeOptions, cooIndex);
    // Each block converted as the whole element is, written as row-major positions and values.
    // A csr block as read is canonical (sorted, duplicates summed), as is a csc's band (a csr of
    // its rows): into csr or coo its entries are the conversion's, in order, and are written as
    // they are; so are a coalesced coo block's into csr.
    const auto asRead = [&](const Tensor &part) {
        return ((e.layout == Layout::Csr || e.layout == Layout::Csc) && request.layout != Layout::RowSparse)
               || (request.layout == Layout::Csr && coalescedCoo(part));
    };
    for (std::size_t k = 0; k < static_cast<std::size_t>(rounds[0]); ++k) {
        // Every rank agrees on each round's reads (collective), past its last block too.
        std::optional<Tensor> part;
        agreeOn(group, [&] {
            if (k < blocks.size()) {
                part = held[k] ? std::move(held[k]) : reader.storedRows(blocks[k]);
                held[k].reset();
                if (!asRead(*part))
                    part = toLayout(*part, request.layout);
            }
        });
        if (!part) {
            writer.writeEntries<T>(mine.end, 0, {}, {});
            continue;
        }
        const auto block = blocks[k];
        part->visit([&](const auto &t) {
            if constexpr (std::is_same_v<ValueOf<std::decay_t<decltype(t)>>, T>)
                writer.writeEntries<T>(block.begin, block.count(), storedLinearIndices(t),
                                       std::span<const T>(t.values.data(), t.values.size()));
            else
                throw InternalError("convertStored: a block of another type");
        });
    }
    reader.gatherRepairs();
    result.storedAfter = writer.counts().entriesTotal;
    return result;
}

// Into csc (2-d), which stores every row of a column before the next column: each block
// converted into a csc of its rows, written in column panels (core/pipeline/csc_of_row_blocks.h).
template <class T>
ConvertedElement convertByColumns(const ConvertRequest &request,
                                  const H5File &input,
                                  const ElementInfo &e,
                                  H5File &output,
                                  ValidationReport &report,
                                  std::int64_t budget,
                                  std::int64_t bandBytes)
{
    const auto opened = openOnEveryRank<T>(input, e.path, bandBytes > 0 ? RowRead::ByBands : RowRead::ByRows, &report);
    auto &reader = *opened;
    if (bandBytes > 0) // beside the counts of its rows, which the reader holds now
        bandBytes = bandShareLeft(budget, reader.heldBytes(), bandBytes);
    const auto blocks = blocksOf(input, e, reader, Layout::Csc, {0, e.shape[0]}, budget, bandBytes);
    // Every rank reads every block for its own panels, so each spills all of it; a spill that
    // fails on one rank stops them all (the panels' writes are collective).
    agreeOn(ranks(), [&] { reader.planBandReads(blocks, bandBytes); });
    const CscOfRowsSource<T> converted = [&](RowRange block, RowRange) { return cscOfRows<T>(reader.storedRows(block)); };
    return writeCscOfRowBlocks<T>(output, e.path, e.shape, false, blocks, converted, request.writeOptions, budget,
                                  [&] { reader.finishTellingRepairs(); });
}

} // namespace

bool convertStoredCan(const ElementInfo &e, Layout target)
{
    // A coo into coo is the element as read: copied as entries (core/pipeline/convert_coo_entries.h).
    // A csc (read by bands, each rank of its own rows) into a row layout.
    const bool rowLayout = target == Layout::Csr || target == Layout::Coo || target == Layout::RowSparse;
    const bool source = !e.masked
                        && (e.layout == Layout::Csr || e.layout == Layout::RowSparse
                            || (e.layout == Layout::Coo && target != Layout::Coo) || (e.layout == Layout::Csc && rowLayout));
    return source && numel(e.shape, 1, e.shape.size()) > 0 && (rowLayout || target == Layout::Csc);
}

std::int64_t wholeConversionBytes(std::int64_t readBytes, std::int64_t outputBytes)
{
    return saturatedSum(bytesFor(readBytes, 3), outputBytes);
}

std::int64_t
convertBandBytes(const H5File &input, const ElementInfo &e, Layout target, std::int64_t outputBytes, std::int64_t budget)
{
    // Into dense, densified from bands held coalesced (DensifiedRows::holdBands), whatever the
    // budget: one band when it fits half of it, which writes the dense result a block at a time
    // where the whole conversion held all of it (a 100,000 x 4,096 csc of 47 MiB: 0.81-1.3 s in
    // 116 MiB as one band, 3.6 s in 1.6 GiB whole). Into a row layout, each band converted as stored,
    // only when the whole conversion does not fit (whole, it is read once, not twice).
    // A masked one is not read by bands (readableByBands).
    const bool densified = target == Layout::Dense && !e.shape.empty() && (e.layout == Layout::Csc || e.layout == Layout::Coo);
    const auto stored = (densified || convertStoredCan(e, target)) && !e.masked ? storedEntriesOf(input, e) : std::nullopt;
    if (!stored)
        return 0;
    const auto bandBytes = bandBytesFor(*stored, std::max<std::int64_t>(1, budget / 2));
    // Into a row layout or csc, also where the whole conversion fits but its bands would be
    // spilled (bandBytesFor): sorted on disk and read in small bands it takes less time and
    // a tenth of the memory (PERFORMANCE.md, stop 53).
    const bool fitsWhole =
        wholeConversionBytes(bytesFor(stored->entries, static_cast<std::size_t>(stored->entryBytes)), outputBytes) <= budget;
    if (!densified && fitsWhole && bandBytes >= budget / 2)
        return 0;
    // Past kMostScannedBands bands the reader spills it sorted by row first.
    return bandBytes;
}

ConvertedElement convertStored(const ConvertRequest &request,
                               const H5File &input,
                               const ElementInfo &e,
                               H5File &output,
                               ValidationReport &report,
                               std::int64_t budgetBytes,
                               std::int64_t bandBytes)
{
    return withComputeType(e.dtype, [&](auto typeTag) {
        using T = decltype(typeTag);
        if (request.layout == Layout::Csc)
            return convertByColumns<T>(request, input, e, output, report, budgetBytes, bandBytes);
        return convertByRows<T>(request, input, e, output, report, budgetBytes, bandBytes);
    });
}

} // namespace sparsity::core
