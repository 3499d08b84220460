#pragma once
// Each sparsifier method's facts, in one table: its name (the CLI's --method, BATCH.json,
// WORKSPACE.json, reports and the sparsifier state), the least rank of the data it takes, how a
// schedule's level sets it, whether its choice ranks the whole tensor, whether that choice
// passes over the rows in rounds, and whether it has a CUDA kernel. The CLI, `run`, the desktop
// app's panel and the engine's checks read them here. Its parameters are listed in
// sparsifier_parameters.h, held in SparsifierConfig (sparsifier_config.h); its kernels are in
// mask_kernels.h.
#include "core/sparsify/sparsifier_config.h"

#include <string_view>

namespace sparsity::core {

// What a schedule's level (core/sparsify/scheduler.h) at a step sets.
enum class LevelRule {
    None,           // threshold, n-m: no level to set
    SparsityLevel,  // data-norm: the fraction of blocks sparsified is the level
    KeepComplement, // row-norm: the fraction of rows kept is 1 - level
};

struct SparsifierMethodFacts {
    SparsifierMethod method;
    std::string_view name;
    int leastRank;   // the data's rank at least (n-m groups and row-norm rows need a dim)
    LevelRule level; // how a schedule's level sets it
    // Its choice ranks the whole tensor (data-norm's blocks, row-norm's rows), so a streamed
    // sparsify takes a first pass over every row, and a window of rows alone would choose
    // otherwise; threshold and n-m decide each row from that row.
    bool ranksWholeTensor;
    // Its choice may pass over every row several times (data-norm's k lowest blocks, when its
    // block scores are not held), so an element that fits the memory limit is held rather than
    // read again in each round; the others read an element at most twice.
    bool choosesInRounds;
    bool cuda; // its mask (data-norm: its block scores) has a CUDA kernel
};

inline constexpr SparsifierMethodFacts kSparsifierMethods[] = {
    {SparsifierMethod::Threshold, "threshold", 0, LevelRule::None, false, false, true},
    {SparsifierMethod::DataNorm, "data-norm", 0, LevelRule::SparsityLevel, true, true, true},
    {SparsifierMethod::NM, "n-m", 1, LevelRule::None, false, false, true},
    {SparsifierMethod::RowNorm, "row-norm", 1, LevelRule::KeepComplement, true, false, false},
};

const SparsifierMethodFacts &factsOf(SparsifierMethod method);

// InputError "<method> data must have rank >= N" for data of fewer dims than the method takes.
void requireLeastRank(SparsifierMethod method, std::size_t rank);

// Sets what the method's level rule names to `level`; false when the method has none.
bool applyScheduleLevel(SparsifierConfig &config, double level);

} // namespace sparsity::core
