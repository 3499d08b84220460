#pragma once
// `convert` of a csc element into csc, a panel of columns at a time. The whole conversion is the
// element canonicalized as a whole read leaves it: each column's rows sorted, a duplicate summed
// in stored order into the first, stored zeros kept. Each column is canonicalized alone, so a
// panel of columns canonicalized gives those columns of it, bit for bit. One scan of the row
// indices checks them as a whole read does (I6, I7's notice: core/io/csc_entry_scan.h) and
// counts what each column keeps; then each panel is read, canonicalized and written
// (core/io/h5_writer.h's CscStreamWriter). A panel holds at most the budget's share of entries,
// one column at least. Across ranks the root makes the scan and each rank writes its own
// contiguous columns.
#include "core/io/h5_catalog.h"
#include "core/pipeline/convert_file.h"

namespace sparsity::core {

// Whether convertCscColumns converts `e` into `target`: an unmasked csc element into csc.
bool convertCscColumnsCan(const ElementInfo &e, Layout target);

ConvertedElement convertCscColumns(const ConvertRequest &request,
                                   const H5File &input,
                                   const ElementInfo &e,
                                   H5File &output,
                                   ValidationReport &report,
                                   std::int64_t budgetBytes);

} // namespace sparsity::core
