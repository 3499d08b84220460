#pragma once
// Layout conversions on the GPU, through the dispatch table. Results equal the CPU kernels'
// exactly (no arithmetic, only compaction).
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/dense_tensor.h"

namespace sparsity::core {

// Throws InputError when no CUDA device is available, InternalError on a CUDA failure.
template <class T>
CompressedTensor<T> denseToCsrOnGpu(const DenseTensor<T> &dense);

} // namespace sparsity::core
