#include "core/device/gpu_conversions.h"

#include "core/device/device.h"
#include "core/device/gpu_backend.h"
#include "core/util/errors.h"

#include <memory>

namespace sparsity::core {

template <class T>
CompressedTensor<T> denseToCsrOnGpu(const DenseTensor<T> &dense)
{
    resolveDevice(DeviceChoice::Cuda); // throws the "no device" InputError
    if (dense.shape.size() != 2)
        throw errors::layoutCannotHold("csr", "needs a 2-d tensor", "shape " + shapeToString(dense.shape));
    const auto *backend = gpuBackend();
    CompressedTensor<T> csr;
    csr.shape = dense.shape;
    csr.indptr.resize(static_cast<std::size_t>(dense.shape[0] + 1));
    std::int64_t *indices = nullptr;
    T *values = nullptr;
    std::string error;
    bool ok = false;
    if constexpr (std::is_same_v<T, float>)
        ok = backend->denseToCsrF32(dense.values.data(), dense.shape[0], dense.shape[1], csr.indptr.data(), &indices, &values,
                                    &error);
    else
        ok = backend->denseToCsrF64(dense.values.data(), dense.shape[0], dense.shape[1], csr.indptr.data(), &indices, &values,
                                    &error);
    if (!ok)
        throw InternalError("dense -> csr on CUDA failed: " + error);
    const std::unique_ptr<std::int64_t[]> ownedIndices(indices);
    const std::unique_ptr<T[]> ownedValues(values);
    const auto nnz = static_cast<std::size_t>(csr.indptr.back());
    csr.indices.assign(indices, indices + nnz);
    csr.values.assign(values, values + nnz);
    return csr;
}

template CompressedTensor<float> denseToCsrOnGpu<float>(const DenseTensor<float> &);
template CompressedTensor<double> denseToCsrOnGpu<double>(const DenseTensor<double> &);

} // namespace sparsity::core
