#pragma once
// The `data_sparsifier_state` encoding (0.2.0): a sparsifier's state dict in HDF5.
//   group (encoding-type data_sparsifier_state), one child group per name, in order:
//     attrs   method and the method's parameters under their keys (sparsifier_parameters.h):
//             threshold; sparsity_level, block ("RxC"), zeros_per_block (only when set),
//             norm ("L1"/"L2"); n, m; keep. 0.1.0 wrote every method's parameters, the
//             block as block_rows and block_cols; it is read as well.
//     data    the original data (dense)
//     mask    coo_tensor of float32 ones at the kept elements, like PyTorch's
//             state_dict() (mask.to_sparse_coo()); absent once the mask was squashed
#include "core/io/h5_handle.h"
#include "core/sparsify/data_sparsifier.h"

namespace sparsity::core {

void writeSparsifierState(H5File &file, const std::string &path, const SparsifierState &state);
// Throws InputError naming the file, group and what is wrong.
SparsifierState readSparsifierState(const H5File &file, const std::string &path);

} // namespace sparsity::core
