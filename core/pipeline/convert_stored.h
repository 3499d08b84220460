#pragma once
// `convert` of a csr, row_sparse or coo element into a sparse layout, a block of rows at a time:
// each block as stored (checked and repaired as a whole read repairs it: stored zeros kept,
// duplicates summed in stored order), converted by toLayout() as the whole element is. Into
// csr, coo and row_sparse, whose conversions keep each row to itself, a first pass counts what
// each row keeps and a second writes the blocks in row order (core/io/h5_writer.h's
// SparseRowStreamWriter), each rank of sparsity-mpi its own rows. Into csc, a first pass counts
// what each column keeps, then the columns are written in panels, every block read again for
// each panel (one process; core/pipeline/csc_of_row_blocks.h). A coo whose rows go back, or a
// csc, is read a band of rows at a time when its whole conversion does not fit
// (core/io/row_band_reader.h). The file holds what the whole conversion writes.
#include "core/io/h5_catalog.h"
#include "core/pipeline/convert_file.h"
#include "core/pipeline/densified_rows.h"

#include <algorithm>

namespace sparsity::core {

// The bytes a block of rows of `convert` holds, at most: larger blocks only hold more memory
// (the reads are sequential either way).
inline constexpr std::int64_t kConvertBlockBytes = std::int64_t{8} << 20;

// The rows of a block of `convert` that holds `bytesPerRow` a row, of an element of `rows` rows:
// what the budget (at most kConvertBlockBytes) holds, one row at least, all of them at most.
inline std::int64_t convertBlockRows(std::int64_t budget, std::int64_t bytesPerRow, std::int64_t rows)
{
    return std::clamp<std::int64_t>(std::min(budget, kConvertBlockBytes) / std::max<std::int64_t>(1, bytesPerRow), 1,
                                    std::max<std::int64_t>(rows, 1));
}

// Whether convertStored converts `e` (an unmasked csr, row_sparse or coo element; a csc one, in
// a single process, by bands) into `target`: csr, coo (not from coo) or row_sparse; csc in a
// single process (not from csc). A row_sparse element of no values per row still stores its
// rows, which no value counts: it goes whole.
bool convertStoredCan(const ElementInfo &e, Layout target);

// What converting an element whole holds at once: the element as read (`readBytes`) three times
// over (it, and the copies its coalescing makes: the entries, their keys and order, the sorted
// entries) and the result (`outputBytes`). An estimate: a 78 MiB coo into csr held 337 MiB
// (counted 312), 463 MiB with its rows shuffled.
std::int64_t wholeConversionBytes(std::int64_t readBytes, std::int64_t outputBytes);

// Where `e`, a coo element whose rows go back somewhere (not read by rows) or a csc, is
// converted a band of rows at a time (core/io/row_band_reader.h), the bytes a band holds; 0
// where it is not. Into a layout convertStoredCan takes (by convertStored) when converting it
// whole (into `outputBytes`) does not fit `budget` or its bands would be spilled, or into dense
// (densified, by convertInBlocks) whatever the budget: bands of half the budget, or of less where
// it is spilled (bandBytesFor), each a scan of it, or past kMostScannedBands one read each of the
// spill it is first sorted into. Decided once: its outline is described, and the spill's folder
// looked at, here alone.
std::int64_t
convertBandBytes(const H5File &input, const ElementInfo &e, Layout target, std::int64_t outputBytes, std::int64_t budget);

// `bandBytes`: 0, its rows read as stored (RowRead::ByRows), or what convertBandBytes chose,
// read in bands of that (RowRead::ByBands).
ConvertedElement convertStored(const ConvertRequest &request,
                               const H5File &input,
                               const ElementInfo &e,
                               H5File &output,
                               ValidationReport &report,
                               std::int64_t budgetBytes,
                               std::int64_t bandBytes);

} // namespace sparsity::core
