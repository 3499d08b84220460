#pragma once
// The mask computations of the built-in sparsifiers on raw arrays (CPU, OpenMP). Masks are
// one byte per element, 1 = kept. Every function is exact and deterministic: ties are
// broken towards the lower index.
#include "core/parallel/rank_group.h"
#include "core/sparsify/sparsifier_config.h"

#include <cstdint>
#include <vector>

namespace sparsity::core {

// |x| < threshold is pruned; |x| >= threshold and NaN are kept.
template <class T>
void thresholdMask(const T *x, std::uint8_t *mask, std::int64_t count, T threshold);

// Threshold mask and squashed values in one pass: y = keep ? x : 0 (y may be x).
template <class T>
void thresholdSquash(const T *x, T *y, std::uint8_t *mask, std::int64_t count, T threshold);

// values[i] = 0 where mask[i] == 0 (squashing a mask), in place.
template <class T>
void applyMask(T *values, const std::uint8_t *mask, std::int64_t count);

// Number of kept (nonzero) mask bytes.
std::int64_t countKept(const std::uint8_t *mask, std::int64_t count);

// Groups of M consecutive elements (the last dim is a multiple of M): the N largest |x| are
// kept (NaN counts as largest).
template <class T>
void nmMask(const T *x, std::uint8_t *mask, std::int64_t groups, std::int64_t n, std::int64_t m);

// L2 norm of each row of a [rows x width] array, accumulated in double.
template <class T>
void rowNorms(const T *x, double *norms, std::int64_t rows, std::int64_t width);

// PyTorch's DataNormSparsifier on a [height x width] view. Returns the number of sparsified
// blocks. In two parts so the block scores can come from the GPU.
template <class T>
std::int64_t
dataNormMask(const T *x, std::uint8_t *mask, std::int64_t height, std::int64_t width, const SparsifierConfig &config);
// avg_pool2d(|x| or x², block, stride=block, ceil_mode=True): one score per block, row-major
// over the block grid; sums row-major in T, divided by the block's real entry count.
template <class T>
std::vector<T> blockScores(const T *x, std::int64_t height, std::int64_t width, const SparsifierConfig &config);
// The same into scores[0, blocks), a buffer the caller reuses.
template <class T>
void blockScoresInto(const T *x, std::int64_t height, std::int64_t width, const SparsifierConfig &config, T *scores);
template <class T>
std::int64_t dataNormMaskFromScores(const T *x,
                                    std::uint8_t *mask,
                                    std::int64_t height,
                                    std::int64_t width,
                                    const SparsifierConfig &config,
                                    const std::vector<T> &scores);

// The two halves of dataNormMaskFromScores, so row bands can be masked one at a time: which
// blocks the level sparsifies (the k lowest (score, index), as one flag per block), and the
// mask of a [height x width] view whose blocks' flags are given (row-major block grid).
template <class T>
std::vector<std::uint8_t> sparsifiedBlocks(const std::vector<T> &scores, double sparsityLevel);
// The same over a group's ranks, each holding the scores of its own bands (collective).
template <class T>
std::vector<std::uint8_t> sparsifiedBlocksAcrossRanks(const RankGroup &group, const std::vector<T> &scores, double sparsityLevel);

// row-norm's kept rows: round-half-even(keep * rows) with the largest norms, ties to the lower
// row, a NaN norm after every number. `norms` are this rank's rows of the group's (collective).
std::vector<std::uint8_t> rowsKeptAcrossRanks(const RankGroup &group, const std::vector<double> &norms, double keepFraction);
template <class T>
void dataNormMaskForBlocks(const T *x,
                           std::uint8_t *mask,
                           std::int64_t height,
                           std::int64_t width,
                           const SparsifierConfig &config,
                           const std::uint8_t *sparsified);

} // namespace sparsity::core
