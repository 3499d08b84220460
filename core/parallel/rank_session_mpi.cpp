// The RankSession of `sparsity-mpi`: MPI ranks, and the RankGroup over them.
#include "core/io/h5_handle.h"
#include "core/io/temporary_file.h"
#include "core/parallel/mpi_world.h"
#include "core/parallel/rank_group.h"
#include "core/parallel/rank_session.h"
#include "core/util/errors.h"
#include "core/util/progress.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <hdf5.h>
#include <iostream>
#include <limits>
#include <new>
#include <omp.h>
#include <optional>
#include <thread>

namespace sparsity::core {
namespace {

MPI_Comm g_world = MPI_COMM_NULL;
MPI_Comm g_failures = MPI_COMM_NULL; // failWith()'s own: no other call is ever pending on it

// How long a rank whose failure no agreement saw waits for the others to fail too.
constexpr auto kFailureWait = std::chrono::seconds(2);

// Whether every rank has come to failWith() with an unagreed failure within kFailureWait of
// this one: a full disk, say, fails every rank's collective write at once. Then the root's
// exit code, the same on every rank; else nullopt (some rank is elsewhere, perhaps waiting in
// a collective call this one will never make).
std::optional<int> everyRankFailed(int code)
{
    MPI_Request arrived = MPI_REQUEST_NULL;
    MPI_Ibarrier(g_failures, &arrived);
    const auto deadline = std::chrono::steady_clock::now() + kFailureWait;
    for (int done = 0;;) {
        MPI_Test(&arrived, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        if (std::chrono::steady_clock::now() > deadline)
            return std::nullopt; // the barrier stays pending: the job is aborted next
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, g_failures);
    return code;
}

// "error: MESSAGE" in one write: mpirun forwards every rank's stderr to one stream, and a line
// written in pieces could take another rank's output into its middle.
void printErrorLine(const std::string &message)
{
    const std::string line = "error: " + message + "\n";
    std::cerr.flush();
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
}

// An error as it crosses ranks: its family in one byte, then its message.
std::string packFailure(std::exception_ptr failure)
{
    try {
        std::rethrow_exception(failure);
    } catch (const Error &e) {
        return std::string(1, e.kind() == ErrorKind::Input ? 'I' : e.kind() == ErrorKind::Io ? 'O' : 'X') + e.what();
    } catch (const Cancelled &) {
        return "C";
    } catch (const std::bad_alloc &) {
        return "Oout of memory";
    } catch (const std::filesystem::filesystem_error &e) {
        return "O" + e.path1().string() + ": " + e.code().message();
    } catch (const std::exception &e) {
        return std::string("Xinternal error: ") + e.what();
    } catch (...) {
        return "Xinternal error: unknown exception";
    }
}

[[noreturn]] void throwPacked(const std::string &packed)
{
    const std::string message = packed.substr(1);
    switch (packed.empty() ? 'X' : packed[0]) {
    case 'I':
        throw InputError(message);
    case 'O':
        throw IoError(message);
    case 'C':
        throw Cancelled();
    default:
        throw InternalError(message);
    }
}

class MpiRanks final : public RankGroup {
public:
    explicit MpiRanks(MPI_Comm world)
    {
        MPI_Comm_dup(world, &m_comm);
        MPI_Comm_rank(m_comm, &m_rank);
        MPI_Comm_size(m_comm, &m_size);
        MPI_Comm node;
        MPI_Comm_split_type(m_comm, MPI_COMM_TYPE_SHARED, m_rank, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &m_onNode);
        MPI_Comm_rank(node, &m_nodeRank);
        MPI_Comm_free(&node);
        const int firstOnItsMachine = m_nodeRank == 0;
        MPI_Allreduce(&firstOnItsMachine, &m_machines, 1, MPI_INT, MPI_SUM, m_comm);
        // The shared task counter lives on the root.
        MPI_Win_allocate(m_rank == 0 ? static_cast<MPI_Aint>(sizeof(std::int64_t)) : 0, sizeof(std::int64_t), MPI_INFO_NULL,
                         m_comm, &m_counterBase, &m_counter);
        if (m_rank == 0)
            *m_counterBase = 0;
        MPI_Barrier(m_comm);
    }
    ~MpiRanks() override
    {
        MPI_Win_free(&m_counter);
        MPI_Comm_free(&m_comm);
    }

    int rank() const override { return m_rank; }
    int size() const override { return m_size; }
    int ranksOnThisNode() const override { return m_onNode; }
    int rankOnThisNode() const override { return m_nodeRank; }
    // The machines the ranks run on (--version says, so a launch's mapping can be checked).
    int machines() const { return m_machines; }
    void sum(std::span<std::int64_t> values) const override
    {
        MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_SUM, m_comm);
    }
    void min(std::span<double> values) const override
    {
        MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MIN, m_comm);
    }
    void max(std::span<double> values) const override
    {
        MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX, m_comm);
    }
    std::int64_t exclusiveScan(std::int64_t value) const override
    {
        std::int64_t before = 0;
        MPI_Exscan(&value, &before, 1, MPI_INT64_T, MPI_SUM, m_comm);
        return m_rank == 0 ? 0 : before; // MPI leaves rank 0's result undefined
    }
    std::string broadcast(const std::string &text, int root) const override
    {
        auto length = static_cast<std::int64_t>(text.size());
        MPI_Bcast(&length, 1, MPI_INT64_T, root, m_comm);
        std::string result = m_rank == root ? text : std::string(static_cast<std::size_t>(length), '\0');
        MPI_Bcast(result.data(), static_cast<int>(length), MPI_CHAR, root, m_comm);
        return result;
    }
    std::vector<std::string> gatherToRoot(const std::string &text) const override
    {
        int length = static_cast<int>(text.size());
        std::vector<int> lengths(static_cast<std::size_t>(m_size)), offsets(static_cast<std::size_t>(m_size));
        MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, m_comm);
        std::string all;
        if (m_rank == 0) {
            int total = 0;
            for (int r = 0; r < m_size; ++r) {
                offsets[static_cast<std::size_t>(r)] = total;
                total += lengths[static_cast<std::size_t>(r)];
            }
            all.resize(static_cast<std::size_t>(total));
        }
        MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, m_comm);
        std::vector<std::string> texts;
        if (m_rank == 0)
            for (int r = 0; r < m_size; ++r)
                texts.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                           static_cast<std::size_t>(lengths[static_cast<std::size_t>(r)])));
        return texts;
    }
    RankParcels exchange(RankParcels toEach) const override
    {
        const auto n = static_cast<std::size_t>(m_size);
        RankParcels received;
        received.sizes.resize(n);
        MPI_Alltoall(toEach.sizes.data(), 1, MPI_INT64_T, received.sizes.data(), 1, MPI_INT64_T, m_comm);
        std::vector<std::int64_t> sendAt(n + 1, 0), receiveAt(n + 1, 0);
        for (std::size_t r = 0; r < n; ++r) {
            sendAt[r + 1] = sendAt[r] + toEach.sizes[r];
            receiveAt[r + 1] = receiveAt[r] + received.sizes[r];
        }
        received.bytes.resize(static_cast<std::size_t>(receiveAt[n]));
        // MPI's counts and displacements are ints: one call when every rank's fit, else rounds
        // of at most `perPair` bytes a pair (each round's buffers under 1 GiB).
        constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
        const bool inOneCall = onEveryRank(sendAt[n] <= kIntMax && receiveAt[n] <= kIntMax);
        const std::int64_t perPair = inOneCall ? kIntMax : std::max<std::int64_t>(1, (std::int64_t{1} << 30) / m_size);
        std::int64_t most = std::max(*std::max_element(toEach.sizes.begin(), toEach.sizes.end()),
                                     *std::max_element(received.sizes.begin(), received.sizes.end()));
        MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT64_T, MPI_MAX, m_comm);
        std::vector<int> sendCounts(n), sendOffsets(n), receiveCounts(n), receiveOffsets(n);
        std::vector<std::byte> sendPiece, receivePiece;
        for (std::int64_t done = 0; done < most || done == 0; done += perPair) {
            // This round's piece of each pair's bytes: [done, done + perPair) of them.
            const auto piece = [&](std::int64_t size) {
                return static_cast<int>(std::clamp<std::int64_t>(size - done, 0, perPair));
            };
            int sendTotal = 0, receiveTotal = 0;
            for (std::size_t r = 0; r < n; ++r) {
                sendCounts[r] = piece(toEach.sizes[r]);
                sendOffsets[r] = inOneCall ? static_cast<int>(sendAt[r]) : sendTotal;
                sendTotal += sendCounts[r];
                receiveCounts[r] = piece(received.sizes[r]);
                receiveOffsets[r] = inOneCall ? static_cast<int>(receiveAt[r]) : receiveTotal;
                receiveTotal += receiveCounts[r];
            }
            if (inOneCall) {
                MPI_Alltoallv(toEach.bytes.data(), sendCounts.data(), sendOffsets.data(), MPI_BYTE, received.bytes.data(),
                              receiveCounts.data(), receiveOffsets.data(), MPI_BYTE, m_comm);
                break;
            }
            sendPiece.resize(static_cast<std::size_t>(sendTotal));
            receivePiece.resize(static_cast<std::size_t>(receiveTotal));
            for (std::size_t r = 0; r < n; ++r)
                if (sendCounts[r] > 0)
                    std::copy_n(toEach.bytes.data() + sendAt[r] + done, sendCounts[r], sendPiece.data() + sendOffsets[r]);
            MPI_Alltoallv(sendPiece.data(), sendCounts.data(), sendOffsets.data(), MPI_BYTE, receivePiece.data(),
                          receiveCounts.data(), receiveOffsets.data(), MPI_BYTE, m_comm);
            for (std::size_t r = 0; r < n; ++r)
                if (receiveCounts[r] > 0)
                    std::copy_n(receivePiece.data() + receiveOffsets[r], receiveCounts[r],
                                received.bytes.data() + receiveAt[r] + done);
        }
        return received;
    }
    void agree(std::exception_ptr failure) const override
    {
        const int mine = failure ? m_rank : m_size;
        int first = m_size;
        MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, m_comm);
        if (first == m_size)
            return;
        markFailureShared();
        const auto packed = broadcast(m_rank == first ? packFailure(failure) : std::string(), first);
        if (m_rank == first)
            std::rethrow_exception(failure);
        throwPacked(packed);
    }
    std::int64_t nextTask() const override
    {
        const std::int64_t one = 1;
        std::int64_t task = 0;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, m_counter);
        MPI_Fetch_and_op(&one, &task, MPI_INT64_T, 0, 0, MPI_SUM, m_counter);
        MPI_Win_unlock(0, m_counter);
        return task;
    }
    void waitIdle() const override
    {
        MPI_Request request;
        MPI_Ibarrier(m_comm, &request);
        for (int done = 0;;) {
            MPI_Test(&request, &done, MPI_STATUS_IGNORE);
            if (done)
                return;
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }

private:
    MPI_Comm m_comm = MPI_COMM_NULL;
    int m_rank = 0, m_size = 1, m_onNode = 1, m_nodeRank = 0, m_machines = 1;
    MPI_Win m_counter = MPI_WIN_NULL;
    std::int64_t *m_counterBase = nullptr;
};

MpiRanks *g_ranks = nullptr;

// Started alone (no mpirun, srun or other launcher set up its job), the one rank needs neither
// the daemon Open MPI starts beside a singleton (for MPI_Comm_spawn, never called here) nor a
// network transport (UCX probes the machine's devices; openib would warn about unused ports):
// it only talks to itself. Without them its MPI_Init took 0.08 s instead of 0.47 s on the
// development VM. A variable the user set in the environment wins; Open MPI's parameter files
// do not (its environment outranks them), which costs a lone rank nothing. Other MPI
// implementations ignore these.
void settleSingleton()
{
    for (const char *launched : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "SLURM_STEP_ID", "SLURM_STEPID"})
        if (std::getenv(launched))
            return;
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
    setenv("OMPI_MCA_pml", "ob1", 0);
    setenv("OMPI_MCA_btl", "self,vader", 0);
}

} // namespace

MPI_Comm worldCommunicator() { return g_world; }

RankSession::RankSession(int &argc, char **&argv)
{
    settleSingleton();
    // The pipelines' I/O thread writes through parallel HDF5 while the command's thread runs
    // the collectives of rank_group.h, each on its own communicator.
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        std::cerr << "error: the MPI library does not support MPI_THREAD_MULTIPLE, which sparsity-mpi needs\n";
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &g_world);
    MPI_Comm_dup(MPI_COMM_WORLD, &g_failures);
    g_ranks = new MpiRanks(g_world);
    setWorldRanks(g_ranks);
    if (!g_ranks->isRoot() && !std::freopen("/dev/null", "w", stdout))
        std::fclose(stdout);
    // Ranks sharing a machine share its cores: OpenMP's default of every core per rank would
    // oversubscribe them (OMP_NUM_THREADS, when set, decides instead).
    if (!std::getenv("OMP_NUM_THREADS"))
        omp_set_num_threads(std::max(1, omp_get_num_procs() / g_ranks->ranksOnThisNode()));
}

RankSession::~RankSession()
{
    std::fflush(stdout);
    setWorldRanks(nullptr);
    delete g_ranks;
    g_ranks = nullptr;
    MPI_Comm_free(&g_failures);
    MPI_Comm_free(&g_world);
    if (hdf5HoldsAHalfClosedFile())
        return; // HDF5 would crash closing it at MPI_Finalize; main ends the process (app/cli)
    MPI_Finalize();
}

const char *RankSession::programName() { return "sparsity-mpi"; }

std::string RankSession::description()
{
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(library, &length);
    std::string mpi(library, static_cast<std::size_t>(length));
    mpi = mpi.substr(0, mpi.find_first_of(",\n"));
    int major = 0, minor = 0;
    MPI_Get_version(&major, &minor);
    unsigned h5major = 0, h5minor = 0, h5release = 0;
    H5get_libversion(&h5major, &h5minor, &h5release);
    const int size = g_ranks ? g_ranks->size() : 1, machines = g_ranks ? g_ranks->machines() : 1;
    return "MPI: enabled, " + mpi + " (MPI " + std::to_string(major) + "." + std::to_string(minor) + "), " + std::to_string(size)
           + (size == 1 ? " rank" : " ranks") + " on " + std::to_string(machines) + (machines == 1 ? " machine" : " machines")
           + "\nHDF5: " + std::to_string(h5major) + "." + std::to_string(h5minor) + "." + std::to_string(h5release)
           + ", parallel (MPI-IO)";
}

int RankSession::failWith(int code, const std::string &message)
{
    if (failureIsShared()) {
        if (ranks().isRoot())
            printErrorLine(message);
        return code;
    }
    endJob(code, message);
}

void endJob(int code, const std::string &message)
{
    // No agreement saw it, so ranks may be waiting in a collective call this one will never
    // make: end them all. When every rank failed so (a full disk fails every rank's collective
    // write at once), the root alone says why, with its exit code; else each failed rank does.
    // Either way the job is aborted: the file a failed collective call left open cannot be
    // closed, and HDF5 would try to at MPI_Finalize.
    if (const auto rootCode = everyRankFailed(code)) {
        code = *rootCode;
        if (ranks().isRoot())
            printErrorLine(message);
        MPI_Barrier(g_failures); // the root's line is out before any rank aborts
    } else {
        printErrorLine(message);
    }
    removeTemporaryFilesNow();
    MPI_Abort(g_world, code);
    std::_Exit(code); // MPI_Abort does not return
}

} // namespace sparsity::core
