#pragma once
// A CSC element (a gradient, a parameter, a mask) divided among ranks by rows (docs/SCALING.md,
// "step"): each rank reads the columns whose entries begin in its even share of them, and sends
// every entry to the rank that owns its row, as coo_rows_exchange.h does for a COO element. The
// element's checks are a whole read's, with its messages: the outline (I1 to I5) on every rank,
// the first row index out of range (I6) over every rank's columns, and the notice of unsorted or
// duplicated rows (I7) with the whole's count.
#include "core/io/h5_catalog.h"
#include "core/parallel/rank_group.h"
#include "core/tensor/tensor.h"
#include "core/util/validation_report.h"

#include <span>

namespace sparsity::core {

// This rank's rows of the CSC element at `path` as a COO tensor of its shape: its rows' entries
// in file order (column by column, each column's as stored), so coalescing sums a row's
// duplicates as a whole read's canonical form does. `rowsOfRanks[r]`: the rows rank r owns,
// contiguous in rank order. `canonical`, when given, is set on every rank to whether the whole
// element is already canonical (each column's rows strictly increasing: no I7 note). Collective;
// in a group of more than one rank.
Tensor cscOfOwnRows(const RankGroup &group,
                    const H5File &file,
                    const ElementInfo &element,
                    std::span<const RowRange> rowsOfRanks,
                    ValidationReport *report,
                    bool *canonical = nullptr);

// Whether `element` is a masked_tensor of CSC data with a CSC mask (maskedCscOfOwnRows).
bool dividesMaskedCsc(const H5File &file, const ElementInfo &element);

// This rank's rows of such an element: data and mask each divided as above, then put in their
// canonical form (a row's duplicates in a column summed in file order, the mask's too: held
// where any is), as a whole read canonicalizes both parts before it compares their patterns.
// Checks and messages are a whole read's: the data's, the mask's M4, the mask's own, M1, M2
// (the canonical patterns compared rank by rank, each its rows). Collective.
Tensor maskedCscOfOwnRows(const RankGroup &group,
                          const H5File &file,
                          const ElementInfo &element,
                          std::span<const RowRange> rowsOfRanks,
                          ValidationReport *report);

} // namespace sparsity::core
