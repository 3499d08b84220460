#pragma once
#include <cstdint>
#include <string>

namespace sparsity::core::cuda {

template <class T>
bool denseToCsr(const T *dense,
                std::int64_t rows,
                std::int64_t cols,
                std::int64_t *indptr,
                std::int64_t **indices,
                T **values,
                std::string *error);

} // namespace sparsity::core::cuda
