#pragma once
// An element that a streamed command reads a block of rows at a time: a step's parameter, each
// state and /last_update of --state-from, a sparse --mask (docs/CLI.md, "step"), and the input
// of sparsify (its "--memory-limit"). Each block is what
// densifying the whole element (toDenseAs) gives for its rows, bit for bit, whatever layout
// the element is stored in, so the step by rows writes what the whole step writes.
#include "core/io/coo_row_reader.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/io/row_band_reader.h"
#include "core/optim/update_pattern.h"
#include "core/pipeline/repair_notices.h"
#include "core/tensor/dense_tensor.h"
#include "core/tensor/row_range.h"
#include "core/util/validation_report.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sparsity::core {

// How a block of an element's rows is read.
enum class RowRead {
    Dense,   // a plain dense dataset: its rows straight into the block (HDF5 converts the type)
    ByRows,  // csr, row_sparse, a coo whose entries' rows never decrease (cooReadableByRows), a
             // masked_tensor of dense, csr, row_sparse or such coo data with a mask of its
             // layout (a coo one of the same entries): the block's rows as stored, then densified
    Whole,   // other coo, csc, other masked_tensors: read once (each rank its rows), coalesced
             // once, and each block filled from it
    ByBands, // a coo whose entries' rows go back, or a csc, that Whole would hold past the
             // budget (one process; in convert, each rank its rows): each read of rows scans
             // all of it, or, past kMostScannedBands reads, is one read of the spill it is first
             // sorted into by row (RowBandReader::planReads); densified, a band
             // is held coalesced (holdBands) while the blocks within it are filled from it, as
             // Whole fills them
};

// Held per stored value of a band read densified (RowRead::ByBands, holdBands): the band as
// read (its value, and a coordinate or column index for each sparse dim) and coalesced (the
// value and its element's index).
constexpr std::int64_t kBandBytesPerValue = 48;
// Held per row of such a band: the read's (kReadBytesPerRow) and its stored values summed by
// row (8 bytes).
constexpr std::int64_t kBandBytesPerRow = kReadBytesPerRow + 8;

// A dense dataset of a numeric type, not masked.
bool plainDense(const ElementInfo &element);
// Coalescing the element `where` read whole holds `bytes` (it and its pattern) beside
// `heldBefore` (what the elements read whole before it hold): refused over the budget, naming
// it, as reading it over the budget is.
void requireRoomToCoalesce(std::int64_t heldBefore, std::int64_t bytes, const std::string &where);
// A band reader of the element `where`, of `rows` rows, counts each row's entries for the whole
// command (rowCountBytes) beside `heldBefore`: refused where they do not fit the budget, naming it.
void requireRoomToCountRows(std::int64_t heldBefore, std::int64_t rows, const std::string &where);
// How `element` of `file` is read by rows.
RowRead rowReadOf(const H5File &file, const ElementInfo &element);
// Whether `element`, which rowReadOf reads whole (RowRead::Whole: the caller knows, asking it
// again would scan a coo's rows again), can be read by bands (RowRead::ByBands): a coo or csc
// whose outline reads, not masked (of bool values too, read as float32 as a whole read reads
// them). Bands past kMostScannedBands spill it sorted by row first (RowBandReader::planReads). Across
// ranks each rank reads bands of its own rows (each a scan of all of it, or its own spill, made by
// one): convert does so, where
// the whole conversion has every rank read all of it; commands that densify in blocks read it
// whole there, each rank its rows (densifiedReadOf).
bool readableByBands(const H5File &file, const ElementInfo &element);
// The band reader of a coo or csc element (readableByBands), which notes in `report` what a
// whole read of it notes when it opens (a conversion).
std::unique_ptr<RowBandReader> openBandReader(const H5File &file, const std::string &path, ValidationReport *report);
// The most a band holds where the element it is read from is spilled sorted by row anyway:
// reading the spill in bands of 8 MiB is as fast as in larger ones (a 78 MiB shuffled coo into
// csr: 0.74 s under 16M, 0.79 s under 64M; PERFORMANCE.md, stop 52).
inline constexpr std::int64_t kSpilledBandBytes = std::int64_t{8} << 20;

// The least a band holds where the counts of its element's rows leave less (bandShareLeft).
inline constexpr std::int64_t kLeastBandBytes = std::int64_t{1} << 20;
// What a band may hold, at most `most`, where `bytes` are for its reader (the counts of its
// element's rows, which hold `counts` already), its band and the blocks beside it: half what
// the counts leave, the blocks taking the other half; where they leave less than
// kLeastBandBytes, that (or `most`, if less). A 40-million-row coo's counts took 45 MB of a 64M
// limit, where half of the limit went to the bands: the blocks were left a row each (75 s).
std::int64_t bandShareLeft(std::int64_t bytes, std::int64_t counts, std::int64_t most);

// The bytes a band of `element` (a coo or csc read by bands) holds where it may hold `most`:
// `most`, or kSpilledBandBytes where that is less and bands of kSpilledBandBytes would number
// more than kMostScannedBands (it then stores more than about 24 MiB as read), so that it is
// spilled sorted by row and read in small bands, in one process, where the spill's folder has
// room for it on a disk (spillFolderHolds: never where the spill could fail or fill memory).
// One band of a 78 MiB shuffled coo converted into csr took 1.00 s and 462 MiB; spilled, 0.74 s
// and 42 MiB (PERFORMANCE.md, stops 52 and 53).
std::int64_t bandBytesFor(const H5File &file, const ElementInfo &element, std::int64_t most);
// The same of an element that a band reader takes, whose outline is `stored` (storedEntriesOf):
// not described again.
std::int64_t bandBytesFor(const StoredEntries &stored, std::int64_t most);
// How a command that densifies `element` a block of rows at a time within `budget` reads it: as
// rowReadOf, except that a coo or csc whose whole read and coalescing do not fit is read by
// bands of half the budget where it can be (not masked: readableByBands), by one process.
RowRead densifiedReadOf(const H5File &file, const ElementInfo &element, std::int64_t budget);

template <class T>
class DensifiedRows;
// A DensifiedRows opened by every rank together (collective): opening a row_sparse element
// checks its indices, and a malformed one must stop every rank with one agreed error (opened
// on each rank alone, it ended in MPI_ABORT).
template <class T>
std::unique_ptr<DensifiedRows<T>>
openOnEveryRank(const H5File &file, const std::string &path, RowRead how, ValidationReport *report);

template <class T>
class DensifiedRows {
public:
    using Value = T;
    // `report` takes the notes a whole read of the element gives (a conversion), once; null for
    // none (states are read without notes, as the whole step reads them).
    DensifiedRows(const H5File &file, std::string path, RowRead how, ValidationReport *report);

    RowRead how() const { return m_how; }
    // A reader of the same element, read the same way, that tells nothing: for passes that read
    // its rows again (eval's look-ahead and folding). Read by bands, it shares this one's band
    // reader (its rows' counts, and its spill, made once) and holds a band of its own of the
    // same size (holdBands). Collective.
    std::unique_ptr<DensifiedRows> quietTwin() const;
    // RowRead::Whole: reads the element, each rank only its rows of it where its layout lets
    // them be sent (readOfOwnRows), and coalesces it as densifying sums it. Refused when it and
    // its coalesced entries do not fit the budget beside `heldBefore` (what the elements read
    // whole before it hold). Collective.
    void readWhole(std::span<const RowRange> rowsOfRanks, std::int64_t heldBefore);
    // RowRead::Whole, every row on every rank: for a reader whose ranks each need rows of
    // all (a csc output's column panels). Collective.
    void readWholeOnEveryRank(std::int64_t heldBefore);
    // RowRead::ByBands, densified (rows(), readRows(), readBox()): each band read holds at most
    // `bytes` (its entries as read and coalesced, kBandBytesPerValue a value, and its rows,
    // kBandBytesPerRow each; one row at least), one band at a time, and no more than the whole
    // element as one band. Rows read in
    // ascending order read each band once.
    // Past kMostScannedBands bands it spills the element sorted by row first, in those bytes
    // (planBandReads).
    void holdBands(std::int64_t bytes);
    // RowRead::ByBands: its rows are to be read in `bands` (ascending; one read each): past
    // kMostScannedBands of them the element's entries in their rows are spilled sorted by row first,
    // holding at most `memoryBytes` (RowBandReader::planReads). Nothing otherwise.
    void planBandReads(std::span<const RowRange> bands, std::int64_t memoryBytes);
    // Rows `rows`, densified. An element read by rows is read or densified into `reuse` (a
    // block's buffer written before), which keeps its pages: a fresh one is faulted in and
    // zeroed again.
    DenseTensor<T> rows(RowRange rows, Buffer<T> reuse = {});
    // RowRead::ByRows or ByBands: rows `rows` as stored (a csr, row_sparse or coo tensor of those rows alone,
    // numbered from the first, checked and repaired as a whole read repairs them), with their
    // notes taken as rows() takes them: what convert keeps of a sparse element, which
    // densifying would lose (stored zeros, and rows stored with no nonzero).
    Tensor storedRows(RowRange rows);
    // RowRead::ByRows of a row_sparse element: the rows it stores, ascending (none otherwise).
    std::span<const std::int64_t> storedRowNumbers() const
    {
        return m_rowSparse ? m_rowSparse->storedRows() : std::span<const std::int64_t>{};
    }
    // RowRead::ByRows of a coo element: its reader, which plans blocks by what rows store
    // (null otherwise).
    const CooRowReader *cooReader() const { return m_coo ? &*m_coo : nullptr; }
    // RowRead::ByBands: its reader, which cuts the bands (null otherwise).
    const RowBandReader *bands() const { return m_bands.get(); }
    // The same rows into `into` (rows.count() * numel(shape[1:]) values): a plain dense
    // element straight from the file, another densified first and copied. Of a masked_tensor
    // (RowRead::ByRows), `specified` (as many bytes) takes which elements are specified, its
    // unspecified ones holding 0 in `into` as densifying the whole gives them; null for
    // every other element.
    void readRows(RowRange rows, T *into, std::uint8_t *specified = nullptr);
    // Whether readRows (without `specified`) reads without calling HDF5, on the OpenMP threads:
    // a plain dense element whose values lie in the file as in memory (core/io/raw_values.h).
    bool readsWithoutHdf5() const { return m_dense && m_dense->readsWithoutHdf5<T>(); }
    // Of a 2-d element, the box rows x columns into `into` (row-major, rows.count() rows of
    // columns.count() values): a column panel, read for a csc output. A plain dense element,
    // and a masked_tensor of dense data and mask (maskedReadableByBoxes) once its notes are
    // told (by its first rows read, or at once where none are wanted), are read by hyperslab,
    // the box alone (readsBoxAlone); any other element densifies the box's rows whole, as many
    // at a time as the box holds values.
    // `specified` as readRows takes it.
    void readBox(RowRange rows, RowRange columns, T *into, std::uint8_t *specified = nullptr);
    // Whether readBox reads the box's columns alone, not its rows' whole width (a masked_tensor's
    // once its notes are told: before, it densifies whole rows and keeps the box of them).
    bool readsBoxAlone() const { return m_dense.has_value() || m_maskedBoxes; }
    // Whether a read of a box of it costs about what the box's whole rows do (CscPanels): read
    // other than as a plain dataset's box alone, from the page cache (a compressed dataset's
    // whole chunks inflated, rows densified whole).
    bool rereadsCostly() const { return !readsBoxAlone() || !readsWithoutHdf5(); }
    // The bytes held from one block to the next: the coalesced element read whole, or the band
    // held (at most holdBands' bytes) with its band reader's rows' counts or spill offsets (a
    // twin's: counted by the reader it shares them with).
    std::int64_t heldBytes() const;
    // Under sparsity-mpi, where each rank reads its own rows: the ranks' I7 notices (unsorted or
    // duplicated indices, repaired), each told for its rank's rows, told in the root's report
    // as one whole read tells them, every rank's duplicates counted. Collective: every rank
    // calls it once its rows are read.
    void gatherRepairs();
    // From now on, rows read tell no I7 notice: each rank has told its own rows', and a later
    // pass reads others' (a csc output's column panels read every row).
    void stopTellingRepairs() { m_notedTo = m_shape.empty() ? 0 : m_shape[0]; }
    // Both, once each rank has read its own rows: their notices told, and none by the passes
    // that then read every row on every rank (a csc output's column panels). Collective.
    void finishTellingRepairs()
    {
        gatherRepairs();
        stopTellingRepairs();
    }
    // RowRead::ByRows, or ByBands densified: the values stored in the rows read so far (as a
    // whole read counts them: storedCount()), for a report of what the element stores.
    std::int64_t storedRead() const { return m_storedRead; }

private:
    // Read by bands from `sharedBands` where it is given (a quietTwin), else opened here.
    DensifiedRows(
        const H5File &file, std::string path, RowRead how, ValidationReport *report, std::shared_ptr<RowBandReader> sharedBands);
    // Rows `rows` of a coo element densified into `into`.
    void cooRowsInto(RowRange rows, T *into);
    // Rows `rows` of a masked_tensor as stored (storedRows), for their values and which of
    // their elements are specified.
    Tensor maskedPart(RowRange rows);
    // Holds `element` (read whole) coalesced as densifying sums it; refused over the budget.
    void coalesce(const Tensor &element, std::int64_t heldBefore);
    // Whether rows() fills blocks from a coalesced element: read whole, or by bands densified.
    bool filledFromCoalesced() const;
    // What rows `rows` are filled from: the element read whole, or the band that holds them
    // (read, and coalesced as the whole is, when the band held does not).
    const UpdatePattern<T> &coalescedHolding(RowRange rows);
    // RowRead::ByBands, once holdBands sized them: the entries a band holds at most.
    std::int64_t bandEntries() const;
    // The rows a band holds at most (kBandBytesPerRow each).
    std::int64_t bandRows() const;
    // The notes of a block of `rows`: the first block's all, and I7's of rows not read before
    // added into one notice (passes and column panels read rows again).
    void takeNotes(const ValidationReport &found, RowRange rows);

    const H5File &m_file;
    std::string m_path;
    RowRead m_how;
    ValidationReport *m_report; // until the first read
    Shape m_shape;
    bool m_masked = false;
    std::optional<DenseRowReader> m_dense;
    // A masked_tensor read by boxes (maskedReadableByBoxes): its reader, opened by the first box
    // read once its notes are told.
    bool m_maskedBoxes = false;
    std::optional<MaskedBoxReader> m_maskedBoxReader;
    std::optional<RowSparseRowReader> m_rowSparse;
    std::optional<CooRowReader> m_coo;
    std::shared_ptr<RowBandReader> m_bands;
    bool m_twin = false;                      // its m_bands shared with (and counted by) the reader it is the twin of
    std::optional<UpdatePattern<T>> m_source; // Whole: its stored values, summed in stored order
    // ByBands, densified: the band held (m_band's rows, numbered from its first) and its
    // values as m_source holds them.
    std::int64_t m_bandBytes = 0;
    RowRange m_bandRows{0, 0};
    std::optional<UpdatePattern<T>> m_band;
    std::vector<std::int64_t> m_bandStored; // values its rows store, summed from its first (storedRead)
    std::int64_t m_storedRead = 0;
    // By rows: I7's notices (unsorted or duplicated indices, repaired: one for its data, one
    // for a mask), each told for every block read so far as a whole read tells it.
    RepairNotices m_repairs;
    std::int64_t m_notedTo = 0;    // rows before it are told: a pass that reads them again adds nothing
    bool m_conversionSaid = false; // by the constructor, for a csr element
};

} // namespace sparsity::core
