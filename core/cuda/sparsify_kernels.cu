// Sparsifier kernels: the same per-element rules as core/sparsify/mask_kernels.cpp (NaN kept
// by threshold and ranked largest by N:M, ties to the lower index; block scores summed
// row-major in float, divided by the block's real entry count, as avg_pool2d does).
#include "core/cuda/cuda_check.h"
#include "core/cuda/device_array.h"
#include "core/cuda/sparsify_kernels.h"

#include <algorithm>

namespace sparsity::core::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(std::int64_t n)
{
    return static_cast<unsigned>(std::min<std::int64_t>((n + kThreads - 1) / kThreads, 65535 * 8));
}

__device__ bool lessNanLast(float a, float b) { return isnan(a) ? false : (isnan(b) || a < b); }

__global__ void thresholdKernel(const float *x, float *y, std::uint8_t *mask, std::int64_t n, float t)
{
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
        const bool keep = !(fabsf(x[i]) < t);
        mask[i] = keep;
        y[i] = keep ? x[i] : 0.0f;
    }
}

__global__ void nmKernel(const float *x, std::uint8_t *mask, std::int64_t elements, std::int64_t n, std::int64_t m)
{
    for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < elements;
         e += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t base = e - e % m, i = e % m;
        const float a = fabsf(x[e]);
        std::int64_t beaten = 0;
        for (std::int64_t j = 0; j < m; ++j) {
            const float b = fabsf(x[base + j]);
            beaten += lessNanLast(a, b) || (j < i && !lessNanLast(b, a));
        }
        mask[e] = beaten < n;
    }
}

__global__ void
scoreKernel(const float *x, float *scores, std::int64_t height, std::int64_t width, std::int64_t bh, std::int64_t bw, bool l2)
{
    const std::int64_t blockCols = (width + bw - 1) / bw;
    const std::int64_t blocks = ((height + bh - 1) / bh) * blockCols;
    for (std::int64_t b = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; b < blocks;
         b += std::int64_t(gridDim.x) * blockDim.x) {
        const std::int64_t r0 = (b / blockCols) * bh, c0 = (b % blockCols) * bw;
        const std::int64_t r1 = min(height, r0 + bh), c1 = min(width, c0 + bw);
        float sum = 0.0f;
        for (std::int64_t r = r0; r < r1; ++r)
            for (std::int64_t c = c0; c < c1; ++c) {
                const float v = x[r * width + c];
                sum += l2 ? v * v : fabsf(v);
            }
        scores[b] = sum / float((r1 - r0) * (c1 - c0));
    }
}

} // namespace

bool thresholdSquash(const float *x, float *y, std::uint8_t *mask, std::int64_t count, float threshold, std::string *error)
{
    DeviceArray<float> dx, dy;
    DeviceArray<std::uint8_t> dm;
    if (!dx.allocate(count, error) || !dy.allocate(count, error) || !dm.allocate(count, error)
        || failed(cudaMemcpy(dx.ptr, x, count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy", error))
        return false;
    if (count > 0)
        thresholdKernel<<<blocksFor(count), kThreads>>>(dx.ptr, dy.ptr, dm.ptr, count, threshold);
    return !failed(cudaGetLastError(), "threshold kernel", error)
           && !failed(cudaMemcpy(y, dy.ptr, count * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy", error)
           && !failed(cudaMemcpy(mask, dm.ptr, count, cudaMemcpyDeviceToHost), "cudaMemcpy", error);
}

bool nmMask(const float *x, std::uint8_t *mask, std::int64_t groups, std::int64_t n, std::int64_t m, std::string *error)
{
    const std::int64_t count = groups * m;
    DeviceArray<float> dx;
    DeviceArray<std::uint8_t> dm;
    if (!dx.allocate(count, error) || !dm.allocate(count, error)
        || failed(cudaMemcpy(dx.ptr, x, count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy", error))
        return false;
    if (count > 0)
        nmKernel<<<blocksFor(count), kThreads>>>(dx.ptr, dm.ptr, count, n, m);
    return !failed(cudaGetLastError(), "n-m kernel", error)
           && !failed(cudaMemcpy(mask, dm.ptr, count, cudaMemcpyDeviceToHost), "cudaMemcpy", error);
}

bool blockScores(const float *x,
                 float *scores,
                 std::int64_t height,
                 std::int64_t width,
                 std::int64_t blockRows,
                 std::int64_t blockCols,
                 bool l2,
                 std::string *error)
{
    const std::int64_t count = height * width;
    const std::int64_t blocks = ((height + blockRows - 1) / blockRows) * ((width + blockCols - 1) / blockCols);
    DeviceArray<float> dx, ds;
    if (!dx.allocate(count, error) || !ds.allocate(blocks, error)
        || failed(cudaMemcpy(dx.ptr, x, count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy", error))
        return false;
    if (blocks > 0)
        scoreKernel<<<blocksFor(blocks), kThreads>>>(dx.ptr, ds.ptr, height, width, blockRows, blockCols, l2);
    return !failed(cudaGetLastError(), "block score kernel", error)
           && !failed(cudaMemcpy(scores, ds.ptr, blocks * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy", error);
}

} // namespace sparsity::core::cuda
