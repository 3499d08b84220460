// `sparsity`: one process, serial HDF5; no file is shared.
#include "core/io/h5_shared_access.h"

namespace sparsity::core {

bool shareFileAccess(hid_t) { return false; }

hid_t collectiveTransferList() { return H5P_DEFAULT; }

bool emptySharedFile(hid_t) { return false; }

} // namespace sparsity::core
