#pragma once
// Text of a value the way torch.masked prints a MaskedTensor, compactly: nested brackets,
// 4 decimals, `--` for unspecified elements, e.g. "[[--, --, 3.0822, --], [4.0620, --, 5.0498, --]]".
// Plain and Sparse values print every element (a sparse value's unstored elements as 0).
#include "core/masked/masked_value.h"

#include <string>

namespace sparsity::core {

template <class T>
std::string formatValue(const MaskedValue<T> &value, int decimals = 4);

} // namespace sparsity::core
