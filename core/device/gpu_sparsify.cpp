#include "core/device/gpu_sparsify.h"

#include "core/device/device.h"
#include "core/device/gpu_backend.h"
#include "core/sparsify/data_sparsifier.h"
#include "core/sparsify/mask_kernels.h"
#include "core/util/errors.h"

namespace sparsity::core {
namespace {

const GpuBackend &backend()
{
    resolveDevice(DeviceChoice::Cuda); // throws the "no device" InputError
    return *gpuBackend();
}

void check(bool ok, const char *what, const std::string &error)
{
    if (!ok)
        throw InternalError(std::string(what) + " on CUDA failed: " + error);
}

} // namespace

Mask thresholdSquashOnGpu(DenseTensor<float> &values, float threshold)
{
    const auto &gpu = backend();
    Mask mask(values.values.size());
    std::string error;
    check(gpu.thresholdSquashF32(values.values.data(), values.values.data(), mask.data(), values.numel(), threshold, &error),
          "threshold", error);
    return mask;
}

Mask nmMaskOnGpu(const DenseTensor<float> &values, std::int64_t n, std::int64_t m)
{
    const auto &gpu = backend();
    Mask mask(values.values.size());
    std::string error;
    check(gpu.nmMaskF32(values.values.data(), mask.data(), values.numel() / m, n, m, &error), "n-m mask", error);
    return mask;
}

std::vector<float> blockScoresOnGpu(const float *x, std::int64_t height, std::int64_t width, const SparsifierConfig &config)
{
    const auto &gpu = backend();
    std::vector<float> scores(static_cast<std::size_t>(config.blocksIn(height, width)));
    std::string error;
    check(gpu.blockScoresF32(x, scores.data(), height, width, config.blockRows, config.blockCols, config.norm == BlockNorm::L2,
                             &error),
          "data-norm block scores", error);
    return scores;
}

Mask dataNormMaskOnGpu(const DenseTensor<float> &values, const SparsifierConfig &config, std::int64_t *blocksRemoved)
{
    const auto [height, width] = dataNormView(values.shape);
    Mask mask(values.values.size());
    const auto scores = blockScoresOnGpu(values.values.data(), height, width, config);
    const auto blocks = dataNormMaskFromScores(values.values.data(), mask.data(), height, width, config, scores);
    if (blocksRemoved)
        *blocksRemoved = blocks;
    return mask;
}

} // namespace sparsity::core
