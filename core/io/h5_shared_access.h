#pragma once
// How an output file is shared by the ranks of a command (core/parallel/rank_group.h). In
// `sparsity` and in a group of one, never: a file is this process's alone. In `sparsity-mpi`
// with more than one rank, every rank opens the output together through MPI-IO and writes
// its own rows with collective transfers (docs/SCALING.md).
#include <hdf5.h>

namespace sparsity::core {

// Sets `fapl` up for a file the current ranks share; false (and `fapl` untouched) when they do
// not share one.
bool shareFileAccess(hid_t fapl);
// A transfer property list for collective writes to a shared file (a new one, to close).
hid_t collectiveTransferList();
// Empties shared `file`, whose contents are thrown away, so that its close finds room for the
// metadata it still writes (on a full disk a rank's write failing inside HDF5's collective
// close left the others waiting, or crashed MPI_Finalize). Collective; false when not done.
bool emptySharedFile(hid_t file);

} // namespace sparsity::core
