#pragma once
// The MPI communicator of the world's ranks (sparsity-mpi only): what parallel HDF5 opens a
// shared output with. Valid between RankSession's start and end.
#include <mpi.h>

namespace sparsity::core {

MPI_Comm worldCommunicator();

} // namespace sparsity::core
