#pragma once
// Rows of a coo element a block at a time, when its entries' rows never decrease: what
// torch's coalesce(), scipy's sum_duplicates() and this tool's writer store. A block of rows
// is then a run of entries, found by binary search on the rows of the entries, read by
// hyperslab and checked as a whole read checks them (docs/HDF5_ENCODINGS.md, `coo_tensor`). A coo
// element whose rows go back somewhere is read whole, as before: its rows' entries can lie
// anywhere. A masked_tensor of such coo data with a coo mask of the same entries (what
// torch.masked makes of coalesced sparse data and mask) is read the same way, the mask's values
// of the same run of entries beside the data's.
#include "core/io/h5_handle.h"
#include "core/io/h5_reader.h"
#include "core/tensor/row_range.h"
#include "core/tensor/tensor.h"
#include "core/util/validation_report.h"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sparsity::core {

// Whether CooRowReader reads `element`: a coo element with a sparse first dim, whose parts a
// whole read accepts by their shapes and types (C1 to C3), and whose entries' rows never
// decrease (read a window at a time); or a masked_tensor of such data whose mask is such a coo
// of bool or uint8 values, of the data's shape, sparse dims and entry count. False otherwise: a
// whole read then says what is wrong, if anything.
bool cooReadableByRows(const H5File &file, const ElementInfo &element);

// The entries of `bytesPerEntry` each that one read may take: a quarter of the budget, 8 MiB
// at most (larger reads only hold more memory), one at least.
std::int64_t cooEntriesPerRead(std::int64_t bytesPerEntry);

// A coo element opened to be read a part at a time: its name as messages give it, its shape and
// how its entries are stored, after the checks a whole read makes of its parts before their
// values (C1 to C3, the types of the indices and values), the conversion of its values noted.
struct CooParts {
    std::string path, where;
    Shape shape;
    int sparseDims = 1;
    std::int64_t entries = 0;
    // Values an entry stores: numel(shape[sparse dims:]), 1 unless the element is hybrid.
    std::int64_t valuesPerEntry() const { return numel(shape, static_cast<std::size_t>(sparseDims), shape.size()); }
};
CooParts openCooParts(const H5File &file, const std::string &path, ValidationReport *report);

// Checks every index of `coo` as a whole read checks them (C4: dim by dim, each in entry order,
// the first offender reported), in one scan a window at a time, calling `window(firstEntry,
// indices)`, where one is given, with each window's indices before the report: dim-major, its
// entries' rows (dim 0's) first. Windows are sized for `indexSetsHeld` such sets at once (a
// caller that reads another coo's window beside each, to compare them, holds two).
void checkCooIndices(const H5File &file,
                     const CooParts &coo,
                     const std::function<void(std::int64_t, std::span<const std::int64_t>)> &window = {},
                     int indexSetsHeld = 1);

// What one scan of every entry's row of a coo element found, kept by its file
// (H5File::cooRowScan): whether they never decrease, whether they then lie within dim 0 (C4 of
// dim 0), and the row of every sampleStride-th entry where they rise (a block's first entry is
// then found by one read of as many rows).
struct CooRowScan {
    bool ascending = false;
    bool rowsWithin = false;
    std::int64_t sampleStride = 1;
    std::vector<std::int64_t> sampledRows;
};

class CooRowReader {
public:
    // Checks what a whole read checks before the rows are read (the parts' shapes and types,
    // and the entries' rows), and notes the conversion of its values as a whole read notes it;
    // the other dims' indices are checked as readRows reads them, and one out of range is
    // reported as a whole read reports it (checkCooIndices). Of a masked_tensor, every index of
    // its data, then the mask's own checks, then the mask against the data (M1, and M2: the
    // same indices, compared a window at a time), in a whole read's order.
    CooRowReader(const H5File &file, const std::string &path, ValidationReport *report = nullptr);
    const CooParts &parts() const { return m_coo; }
    // The first entry of row `row` or a later one: the entries of rows [a, b) are
    // [firstEntryOf(a), firstEntryOf(b)).
    std::int64_t firstEntryOf(std::int64_t row) const;
    // Rows `span` in blocks storing at most `entries` entries each (one row at least, at most
    // `maxRows` rows), cut where the entries' sampled rows say.
    std::vector<RowRange> blocksOfEntries(RowRange span, std::int64_t entries, std::int64_t maxRows) const;
    // The entries a read of rows may hold with their coordinates (cooEntriesPerRead).
    std::int64_t entriesPerRead() const;
    // Rows `rows` as a coo tensor of those rows alone, numbered from the first: their entries
    // in stored order, their indices checked (C4), with the mask's values of the same entries,
    // a byte each (0 or 1), of a masked_tensor.
    Tensor readRows(RowRange rows) const;
    // The indices alone of rows `rows`' entries, dim-major, of every sparse dim, dim 0's numbered
    // from the first of the rows: checked as readRows checks them, without reading the values.
    // What counting a block's entries needs (core/pipeline/convert_stored.cpp).
    Buffer<std::int64_t> readRowIndices(RowRange rows) const;

private:
    // Of a masked_tensor at `path`: the mask checked against the data, where the scan that
    // checked the data's indices (C4) did not find it the same (`same`: its parts, and its
    // indices compared window by window in that scan; none where it could not be compared).
    void openMask(const std::string &path, const std::optional<CooParts> &same);

    const H5File &m_file;
    CooParts m_coo; // of a masked_tensor, its data's
    // Of a masked_tensor, its mask's values (its indices are the data's, checked once): read
    // alone, a run of entries at a time, as bytes.
    std::optional<DenseRowReader> m_maskValues;
    std::shared_ptr<const CooRowScan> m_scan; // of its entries' rows
    // Of an element of coo data alone: its rows' scan taken, or made, and checked.
    void openRows();
    // The indices (dim-major) of `n` entries, read from entry `firstEntry` on as rows `rows`:
    // their rows within them and rising (as the scan found them), and every other dim's index
    // within its dim.
    void requireIndicesOf(std::span<const std::int64_t> indices, std::int64_t n, std::int64_t firstEntry, RowRange rows) const;
    std::int64_t rowOfEntry(std::int64_t entry) const;
};

} // namespace sparsity::core
