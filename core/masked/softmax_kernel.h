#pragma once
// softmax / log_softmax along one dim. Masked and Sparse values follow torch.masked and
// torch.sparse.softmax: unspecified elements count as -inf (they take no share), the result
// keeps the input's mask, and a lane with nothing specified is unspecified throughout.
#include "core/masked/masked_value.h"

#include <string_view>

namespace sparsity::core {

// Whether the expression language's function `name` is softmax or log_softmax.
inline bool softmaxNamed(std::string_view name) { return name == "softmax" || name == "log_softmax"; }

template <class T>
MaskedValue<T> softmax(const MaskedValue<T> &input, int dim, bool logarithm);

} // namespace sparsity::core
