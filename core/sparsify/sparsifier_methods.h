#pragma once
// Each sparsifier method's facts, in one table: its name (the CLI's --method, BATCH.json,
// WORKSPACE.json, reports and the sparsifier state), its parameters' keys in BATCH.json and
// WORKSPACE.json, the least rank of the data it takes, how a schedule's level sets it, and
// whether it has a CUDA kernel. The CLI, `run`, the desktop
// app's panel and the engine's checks read them here; the method's parameters live in
// SparsifierConfig (sparsifier_config.h) and its kernels in mask_kernels.h.
#include "core/sparsify/sparsifier_config.h"

#include <span>
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
    std::span<const std::string_view> keys; // its parameters; a recipe giving another method's is refused
    int leastRank;                          // the data's rank at least (n-m groups and row-norm rows need a dim)
    LevelRule level;                        // how a schedule's level sets it
    bool cuda;                              // its mask (data-norm: its block scores) has a CUDA kernel

    bool takes(std::string_view key) const
    {
        for (const auto k : keys)
            if (k == key)
                return true;
        return false;
    }
};

inline constexpr std::string_view kThresholdKeys[] = {"threshold"};
inline constexpr std::string_view kDataNormKeys[] = {"sparsity_level", "block", "zeros_per_block", "norm"};
inline constexpr std::string_view kNmKeys[] = {"n", "m"};
inline constexpr std::string_view kRowNormKeys[] = {"keep"};

inline constexpr SparsifierMethodFacts kSparsifierMethods[] = {
    {SparsifierMethod::Threshold, "threshold", kThresholdKeys, 0, LevelRule::None, true},
    {SparsifierMethod::DataNorm, "data-norm", kDataNormKeys, 0, LevelRule::SparsityLevel, true},
    {SparsifierMethod::NM, "n-m", kNmKeys, 1, LevelRule::None, true},
    {SparsifierMethod::RowNorm, "row-norm", kRowNormKeys, 1, LevelRule::KeepComplement, false},
};

const SparsifierMethodFacts &factsOf(SparsifierMethod method);

// InputError "<method> data must have rank >= N" for data of fewer dims than the method takes.
void requireLeastRank(SparsifierMethod method, std::size_t rank);

// Sets what the method's level rule names to `level`; false when the method has none.
bool applyScheduleLevel(SparsifierConfig &config, double level);

} // namespace sparsity::core
