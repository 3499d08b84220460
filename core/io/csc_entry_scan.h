#pragma once
// One scan of a csc element's row indices, a window at a time, checking them as a whole read
// checks them: what a reader of its rows in bands (core/io/csc_band_reader.h) and a conversion of
// it a panel of columns at a time (core/pipeline/convert_csc_columns.h) learn before they read
// its values. Each entry is checked against I6 (the first offender in entry order, with a whole
// read's message), and what canonicalizing the element (I7) would find is told as a whole read
// tells it: a column whose rows do not strictly ascend, and its duplicates. A marker per row (8
// bytes) is held while it scans, outside the budget.
#include "core/io/coo_row_reader.h"
#include "core/io/h5_reader.h"
#include "core/tensor/compressed_tensor.h"
#include "core/util/errors.h"
#include "core/util/validation_report.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace sparsity::core {

// Entries read at a time by a scan of a csc (an index, and a value of up to 8 bytes).
inline std::int64_t cscEntriesPerRead() { return std::max<std::int64_t>(64, cooEntriesPerRead(16)); }

// `each(row, column, duplicate)` for every entry of the csc `outline` describes, in stored
// order: `duplicate` when its row was met before in its column (summed into the first when the
// element is canonicalized). `report` takes I7's notice.
template <class Each>
void scanCscEntries(
    const H5File &file, const std::string &path, const CompressedOutline &outline, ValidationReport *report, Each &&each)
{
    const auto rows = outline.shape[0];
    const auto &indptr = outline.indptr;
    const auto entries = indptr.back();
    // seenIn[row]: the last column `row` was met in.
    std::vector<std::int64_t> seenIn(static_cast<std::size_t>(rows), -1);
    bool canonical = true;
    std::int64_t duplicates = 0, column = 0, previous = -1;
    const auto window = cscEntriesPerRead();
    for (std::int64_t first = 0; first < entries; first += window) {
        const auto n = std::min(window, entries - first);
        const auto indices = readCompressedIndices(file, path, {first, first + n});
        for (std::int64_t k = 0; k < n; ++k) {
            const auto entry = first + k;
            while (indptr[static_cast<std::size_t>(column + 1)] <= entry) { // the column `entry` lies in (indptr ascends: I5)
                ++column;
                previous = -1;
            }
            const auto row = indices[static_cast<std::size_t>(k)];
            if (row < 0 || row >= rows)
                rethrowWithContext(compressedIndexOutOfRange(outline.tag, rows, entry, row), outline.where);
            canonical = canonical && row > previous;
            previous = row;
            auto &seen = seenIn[static_cast<std::size_t>(row)];
            const bool duplicate = seen == column;
            duplicates += duplicate;
            seen = column;
            each(row, column, duplicate);
        }
    }
    if (!canonical)
        noteCanonicalized(report, outline.tag, outline.where, duplicates);
}

} // namespace sparsity::core
