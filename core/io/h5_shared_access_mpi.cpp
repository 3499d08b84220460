// `sparsity-mpi`: parallel HDF5 over the world's ranks.
#include "core/io/h5_shared_access.h"
#include "core/parallel/mpi_world.h"
#include "core/parallel/rank_group.h"

namespace sparsity::core {

bool shareFileAccess(hid_t fapl)
{
    if (ranks().isSolo())
        return false;
    // Every rank takes part in each metadata change, so any rank may write any dataset's rows.
    return H5Pset_fapl_mpio(fapl, worldCommunicator(), MPI_INFO_NULL) >= 0;
}

hid_t collectiveTransferList()
{
    const hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    return dxpl;
}

bool emptySharedFile(hid_t file)
{
    void *handle = nullptr; // the MPI-IO driver's MPI_File
    return H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) >= 0 && handle
           && MPI_File_set_size(*static_cast<MPI_File *>(handle), 0) == MPI_SUCCESS;
}

} // namespace sparsity::core
