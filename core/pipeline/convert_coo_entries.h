#pragma once
// `convert` of a coo element into coo: the whole conversion is the element as read (its entries
// in stored order, hybrid or not, duplicates and all; values in the compute type), so it is
// copied a run of entries at a time whatever the order of its rows, in memory bounded by a
// run. Every index is checked first, in one scan, as a whole read checks them (C4, the lowest
// dim's first offender), before anything is written. Across ranks each copies its own
// contiguous share of the entries; the root alone makes the scan.
#include "core/io/h5_catalog.h"
#include "core/pipeline/convert_file.h"

namespace sparsity::core {

// Whether convertCooEntries converts `e` into `target`: an unmasked coo element into coo.
bool convertCooEntriesCan(const ElementInfo &e, Layout target);

ConvertedElement convertCooEntries(const ConvertRequest &request,
                                   const H5File &input,
                                   const ElementInfo &e,
                                   H5File &output,
                                   ValidationReport &report,
                                   std::int64_t budgetBytes);

} // namespace sparsity::core
