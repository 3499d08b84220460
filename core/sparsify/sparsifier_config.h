#pragma once
// Per-name configuration of a data sparsifier (PyTorch's data_groups entry). One struct holds
// every method's options; each method reads its own and validate() checks them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparsity::core {

enum class SparsifierMethod { Threshold, DataNorm, NM, RowNorm };
enum class BlockNorm { L1, L2 };

std::string_view methodName(SparsifierMethod method);
SparsifierMethod parseMethod(std::string_view name); // InputError naming the choices

struct SparsifierConfig {
    SparsifierMethod method = SparsifierMethod::Threshold;
    double threshold = 0.0;                    // threshold: |x| < T is pruned
    double sparsityLevel = 0.5;                // data-norm: fraction of blocks sparsified
    std::int64_t blockRows = 1, blockCols = 4; // data-norm: sparse_block_shape
    std::optional<std::int64_t> zerosPerBlock; // data-norm: default = whole block
    BlockNorm norm = BlockNorm::L1;
    std::int64_t n = 2, m = 4; // n-m: keep N of every M along the last dim
    double keep = 0.5;         // row-norm: fraction of rows kept

    std::int64_t blockSize() const { return blockRows * blockCols; }
    // data-norm's grid of blocks over height x width values, as avg_pool2d's ceil_mode: the
    // last band of rows and the last column of blocks may be partial.
    std::int64_t bandsIn(std::int64_t height) const { return (height + blockRows - 1) / blockRows; }
    std::int64_t blockColumnsIn(std::int64_t width) const { return (width + blockCols - 1) / blockCols; }
    std::int64_t blocksIn(std::int64_t height, std::int64_t width) const { return bandsIn(height) * blockColumnsIn(width); }
    std::int64_t resolvedZerosPerBlock() const { return zerosPerBlock.value_or(blockSize()); }
    // Throws InputError "<option> must ..., but got ..." for the method's options.
    void validate() const;
    bool operator==(const SparsifierConfig &) const = default;
};

// "RxC" -> (R, C); InputError for anything else.
std::pair<std::int64_t, std::int64_t> parseBlockShape(std::string_view text);

} // namespace sparsity::core
