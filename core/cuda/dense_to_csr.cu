// Dense -> CSR on the GPU: one block per row counts nonzeros, an exclusive scan (thrust)
// builds indptr, a second pass writes entries in column order (a block-wide ordered
// compaction, so columns stay sorted).
#include "core/cuda/cuda_check.h"
#include "core/cuda/dense_to_csr.h"
#include "core/cuda/device_array.h"

#include <thrust/device_ptr.h>
#include <thrust/scan.h>
#include <vector>

namespace sparsity::core::cuda {
namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void countRows(const T *dense, std::int64_t rows, std::int64_t cols, std::int64_t *counts)
{
    __shared__ std::int64_t partial[kThreads];
    const std::int64_t row = blockIdx.x;
    if (row >= rows)
        return;
    std::int64_t count = 0;
    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        count += dense[row * cols + j] != T(0);
    partial[threadIdx.x] = count;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride)
            partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        counts[row + 1] = partial[0];
}

template <class T>
__global__ void
fillRows(const T *dense, std::int64_t rows, std::int64_t cols, const std::int64_t *indptr, std::int64_t *indices, T *values)
{
    __shared__ int flags[kThreads];
    __shared__ std::int64_t base;
    const std::int64_t row = blockIdx.x;
    if (row >= rows)
        return;
    if (threadIdx.x == 0)
        base = indptr[row];
    __syncthreads();
    for (std::int64_t tile = 0; tile < cols; tile += blockDim.x) {
        const std::int64_t j = tile + threadIdx.x;
        const T v = j < cols ? dense[row * cols + j] : T(0);
        flags[threadIdx.x] = v != T(0);
        __syncthreads();
        // Inclusive Hillis-Steele scan of the flags gives each nonzero its slot in order.
        for (int offset = 1; offset < kThreads; offset *= 2) {
            const int add = threadIdx.x >= offset ? flags[threadIdx.x - offset] : 0;
            __syncthreads();
            flags[threadIdx.x] += add;
            __syncthreads();
        }
        if (v != T(0)) {
            const std::int64_t slot = base + flags[threadIdx.x] - 1;
            indices[slot] = j;
            values[slot] = v;
        }
        __syncthreads();
        if (threadIdx.x == kThreads - 1)
            base += flags[threadIdx.x];
        __syncthreads();
    }
}

} // namespace

template <class T>
bool denseToCsr(const T *dense,
                std::int64_t rows,
                std::int64_t cols,
                std::int64_t *indptr,
                std::int64_t **indices,
                T **values,
                std::string *error)
{
    const auto elements = static_cast<size_t>(rows * cols);
    DeviceArray<T> dDense;
    DeviceArray<std::int64_t> dIndptr;
    if (!dDense.upload(dense, elements, error) || !dIndptr.allocate(static_cast<size_t>(rows + 1), error)
        || failed(cudaMemset(dIndptr.ptr, 0, sizeof(std::int64_t)), "cudaMemset", error))
        return false;
    if (rows > 0) {
        countRows<T><<<static_cast<unsigned>(rows), kThreads>>>(dDense.ptr, rows, cols, dIndptr.ptr);
        if (failed(cudaGetLastError(), "countRows", error))
            return false;
        thrust::device_ptr<std::int64_t> p(dIndptr.ptr);
        thrust::inclusive_scan(p, p + rows + 1, p);
    }
    if (!dIndptr.download(indptr, static_cast<size_t>(rows + 1), error))
        return false;
    const auto nnz = static_cast<size_t>(indptr[rows]);
    DeviceArray<std::int64_t> dIndices;
    DeviceArray<T> dValues;
    if (!dIndices.allocate(nnz, error) || !dValues.allocate(nnz, error))
        return false;
    if (rows > 0) {
        fillRows<T><<<static_cast<unsigned>(rows), kThreads>>>(dDense.ptr, rows, cols, dIndptr.ptr, dIndices.ptr, dValues.ptr);
        if (failed(cudaGetLastError(), "fillRows", error))
            return false;
    }
    *indices = new std::int64_t[nnz];
    *values = new T[nnz];
    if (failed(cudaMemcpy(*indices, dIndices.ptr, nnz * sizeof(std::int64_t), cudaMemcpyDeviceToHost), "cudaMemcpy", error)
        || failed(cudaMemcpy(*values, dValues.ptr, nnz * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy", error)) {
        delete[] * indices;
        delete[] * values;
        return false;
    }
    return true;
}

template bool
denseToCsr<float>(const float *, std::int64_t, std::int64_t, std::int64_t *, std::int64_t **, float **, std::string *);
template bool
denseToCsr<double>(const double *, std::int64_t, std::int64_t, std::int64_t *, std::int64_t **, double **, std::string *);

} // namespace sparsity::core::cuda
