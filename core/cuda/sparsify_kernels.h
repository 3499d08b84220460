#pragma once
#include <cstdint>
#include <string>

namespace sparsity::core::cuda {

bool thresholdSquash(const float *x, float *y, std::uint8_t *mask, std::int64_t count, float threshold, std::string *error);
bool nmMask(const float *x, std::uint8_t *mask, std::int64_t groups, std::int64_t n, std::int64_t m, std::string *error);
bool blockScores(const float *x,
                 float *scores,
                 std::int64_t height,
                 std::int64_t width,
                 std::int64_t blockRows,
                 std::int64_t blockCols,
                 bool l2,
                 std::string *error);

} // namespace sparsity::core::cuda
