#pragma once
// RankSession: this process's part in a command. In `sparsity` it does nothing; in
// `sparsity-mpi` it starts MPI (one rank alone, or the N ranks of mpirun/srun), makes
// ranks() the world's ranks, sends the output of every rank but the root to /dev/null (one
// report, one error line), and finalizes MPI at the end.
//
// failWith() ends a failed command: an error every rank agreed on (rank_group.h) is printed
// by the root and every rank returns its exit code. An error no agreement saw (the others
// may be waiting in a collective call) aborts the whole job with the exit code, after this
// rank's temporary files are removed (mpirun's SIGTERM then removes the other ranks'). It
// waits a moment for the other ranks first: when every rank failed so (a full disk fails every
// rank's collective write), the root alone prints its error and gives the exit code; otherwise
// each failed rank prints its own.
#include <string>

namespace sparsity::core {

class RankSession {
public:
    RankSession(int &argc, char **&argv);
    ~RankSession();
    RankSession(const RankSession &) = delete;
    RankSession &operator=(const RankSession &) = delete;

    // "sparsity" or "sparsity-mpi".
    static const char *programName();
    // Lines for --version: empty for `sparsity`; the MPI library, the ranks and HDF5's
    // version and flavour for `sparsity-mpi`.
    static std::string description();
    // Prints "error: <message>" as described above and returns `code` (or never returns).
    int failWith(int code, const std::string &message);
};

// Ends the job now, from any thread, as failWith() does an error no agreement saw: for a
// failure inside a collective call (a rank's write to a shared file failing partway leaves
// the ranks in different collective calls, where no agreement can reach them, and unwinding
// would wait for them). Only `sparsity-mpi` shares files, so `sparsity` never calls it.
[[noreturn]] void endJob(int code, const std::string &message);

} // namespace sparsity::core
