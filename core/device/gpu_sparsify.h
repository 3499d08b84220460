#pragma once
// Sparsifier masks on the CUDA device (float32), equal to the CPU kernels. Each throws
// InputError without a device and InternalError on a CUDA failure.
#include "core/sparsify/sparsifier_config.h"
#include "core/tensor/dense_tensor.h"
#include "core/tensor/tensor.h"

namespace sparsity::core {

// Squashes `values` in place; returns the mask.
Mask thresholdSquashOnGpu(DenseTensor<float> &values, float threshold);
Mask nmMaskOnGpu(const DenseTensor<float> &values, std::int64_t n, std::int64_t m);
// Data-norm with the block scores computed on the GPU. Returns the mask; `blocksRemoved` set.
Mask dataNormMaskOnGpu(const DenseTensor<float> &values, const SparsifierConfig &config, std::int64_t *blocksRemoved);
std::vector<float> blockScoresOnGpu(const float *x, std::int64_t height, std::int64_t width, const SparsifierConfig &config);

} // namespace sparsity::core
