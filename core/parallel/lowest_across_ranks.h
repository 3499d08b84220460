#pragma once
// The k lowest of a sequence of keys spread over the ranks of a group, each rank holding one
// contiguous stretch of it in rank order: the first k of a stable sort of the whole sequence
// by key, NaN after every number, ties to the lower position. data-norm's sparsified blocks
// (the k lowest scores) and row-norm's kept rows (the k highest norms) are this selection.
//
// A distributed radix selection (no rank ever holds another's keys): the k-th key is found
// 16 bits at a time from a 65,536-bin histogram of the candidates, summed across ranks (four
// rounds for 64-bit keys); keys below it are chosen, and an exclusive scan of each rank's
// count of keys equal to it hands the remaining places to the lowest positions. In a group of
// one it is the same computation, so the single-process and the MPI results are one code's.
#include "core/parallel/rank_group.h"

#include <cstdint>
#include <span>
#include <vector>

namespace sparsity::core {

// chosen[i] = 1 when this rank's keys[i] is among the k lowest of the whole sequence; k is
// clamped to [0, total keys]. Collective.
std::vector<std::uint8_t> lowestAcrossRanks(const RankGroup &group, std::span<const double> keys, std::int64_t k);

} // namespace sparsity::core
