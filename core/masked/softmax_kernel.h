#pragma once
// softmax / log_softmax along one dim. Masked and Sparse values follow torch.masked and
// torch.sparse.softmax: unspecified elements count as -inf (they take no share), the result
// keeps the input's mask, and a lane with nothing specified is unspecified throughout.
#include "core/masked/masked_value.h"

namespace sparsity::core {

template <class T>
MaskedValue<T> softmax(const MaskedValue<T> &input, int dim, bool logarithm);

} // namespace sparsity::core
