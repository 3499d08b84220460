#pragma once
// A COO element (a gradient, a parameter, a mask) divided among ranks by rows (docs/SCALING.md,
// "step"): each rank reads an even share of the entries and sends every entry to the rank that
// owns its row (all to all, in rounds of a few MiB), so no rank reads or holds the whole
// element, nor its share at once. A rank gets a COO tensor of the whole shape holding exactly
// the entries of its rows, in their order in the file. Coalescing sums a row's
// duplicates in file order either way, so the update patterns built from it are, for those
// rows, the whole gradient's, bit for bit; the first index out of range in the whole file is
// the one reported, numbered as a whole read numbers it.
#include "core/io/h5_catalog.h"
#include "core/parallel/rank_group.h"
#include "core/tensor/tensor.h"
#include "core/util/validation_report.h"

#include <span>

namespace sparsity::core {

// An element read whole (a parameter, a gradient, a mask), each rank only its rows of it where
// its layout lets them be sent: COO, CSC (csc_rows_exchange.h), and a masked_tensor of COO data
// and mask or of CSC data and mask (the mask checked against the data as a whole read checks
// it). Other layouts are read whole by every rank.
// `rowsOfRanks[r]`: the rows rank r owns, contiguous in rank order. Collective.
Tensor readOfOwnRows(const RankGroup &group,
                     const H5File &file,
                     const std::string &path,
                     std::span<const RowRange> rowsOfRanks,
                     ValidationReport *report);

} // namespace sparsity::core
