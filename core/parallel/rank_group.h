#pragma once
// RankGroup: the processes one command runs across (docs/SCALING.md). `sparsity` is always a
// group of one; `sparsity-mpi` under `mpirun -np N` is a group of N MPI ranks, each working
// its own range of rows, with the collectives below for the choices that need every rank's
// data (a histogram's range, the k lowest block scores, offsets into a sparse output).
//
// Every rank must call a collective the same number of times in the same order. Errors are
// agreed before any collective write (agree(), agreeOn()): a rank that failed tells the
// others, every rank throws the failing rank's error, and all of them unwind through the same
// collective closes. An error no agreement saw ends the whole job (see rank_session.h).
//
// ranks() is the group the current command works across; a SoloRanksScope makes it a group of
// one for a while (a batch run's input is done by one rank alone).
#include "core/tensor/row_range.h"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <vector>

namespace sparsity::core {

// Bytes for (or from) each rank of a group: consecutive in `bytes`, sizes[r] of them rank r's.
struct RankParcels {
    std::vector<std::byte> bytes;
    std::vector<std::int64_t> sizes;
};

class RankGroup {
public:
    virtual ~RankGroup() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    bool isRoot() const { return rank() == 0; }
    bool isSolo() const { return size() == 1; }
    // Ranks sharing this machine's memory (an automatic memory budget is divided among them).
    virtual int ranksOnThisNode() const = 0;
    // This process's place among the world's ranks on this machine, 0 first: which of the
    // machine's GPUs it takes (core/device/device.h). A batch's input worked alone keeps it.
    virtual int rankOnThisNode() const = 0;

    // Element-wise over every rank, in place.
    virtual void sum(std::span<std::int64_t> values) const = 0;
    virtual void min(std::span<double> values) const = 0;
    virtual void max(std::span<double> values) const = 0;
    std::int64_t sum(std::int64_t value) const;
    // Whether `value` holds on every rank: how the ranks take one code path together.
    bool onEveryRank(bool value) const;
    // The sum of `value` over the ranks below this one (0 on rank 0).
    virtual std::int64_t exclusiveScan(std::int64_t value) const = 0;
    // Rank `root`'s text, on every rank.
    virtual std::string broadcast(const std::string &text, int root = 0) const = 0;
    // Every rank's text, in rank order, on the root (empty elsewhere).
    virtual std::vector<std::string> gatherToRoot(const std::string &text) const = 0;
    // All to all: parcel r of `toEach` goes to rank r. Returns what each rank sent this one,
    // in rank order.
    virtual RankParcels exchange(RankParcels toEach) const = 0;
    // Every rank says whether it failed (`failure` non-null). When one did, every rank throws the
    // error of the lowest failed rank (the same family and message) and failureIsShared() holds.
    virtual void agree(std::exception_ptr failure) const = 0;
    // The next task of a shared counter: 0, 1, 2, ... across every rank, each number handed out
    // once (a batch's inputs go to whichever rank is free).
    virtual std::int64_t nextTask() const = 0;
    // Waits until every rank calls it, without keeping a core busy (MPI's collectives spin):
    // ranks waiting for the root leave it the machine's cores.
    virtual void waitIdle() const = 0;
};

// Runs `work` on every rank and agrees on its failure before returning its result.
template <class Work>
auto agreeOn(const RankGroup &group, Work &&work) -> decltype(work())
{
    std::exception_ptr failure;
    if constexpr (std::is_void_v<decltype(work())>) {
        try {
            work();
        } catch (...) {
            failure = std::current_exception();
        }
        group.agree(failure);
    } else {
        decltype(work()) result{};
        try {
            result = work();
        } catch (...) {
            failure = std::current_exception();
        }
        group.agree(failure);
        return result;
    }
}

// A rank's failure held back in a loop of collective calls (writes to a shared file), which a
// rank that failed must go on making with the others: guard() skips work after a failure and
// keeps the first, agree() (collective, before each such call) throws it on every rank.
class DeferredFailure {
public:
    template <class Work>
    void guard(Work &&work)
    {
        if (m_failure)
            return;
        try {
            work();
        } catch (...) {
            m_failure = std::current_exception();
        }
    }
    void agree(const RankGroup &group) const { group.agree(m_failure); }

private:
    std::exception_ptr m_failure;
};

// Every rank's `mine`, concatenated in rank order, on every rank (through exchange()).
std::vector<std::byte> gatheredOnEveryRank(const RankGroup &group, std::span<const std::byte> mine);

const RankGroup &ranks();
// Whether the error being handled was agreed by every rank (so each rank is unwinding through
// the same collective calls). Always true in a group of one.
bool failureIsShared();
void markFailureShared();

// Rows [begin, end) of `rows` that rank `rank` of `size` works: contiguous ranges in rank
// order, whole multiples of `unit` rows (a block, a chunk) except the last.
RowRange rowsOfRank(std::int64_t rows, std::int64_t unit, int rank, int size);

// A dataset's rows in blocks, divided among a group's ranks: every rank cuts the same blocks
// (the smallest `blockRows` any rank asked for), works its own contiguous range of them, and
// makes `rounds` collective writes, the number of blocks of the rank with the most (past its
// last block a rank writes an empty one).
struct RankBlocks {
    std::int64_t blockRows = 1;
    std::vector<RowRange> ofRanks; // every rank's rows, in rank order
    RowRange mine;                 // this rank's rows
    std::int64_t count = 0;        // this rank's blocks
    std::int64_t rounds = 0;
    // Block k of this rank's rows: empty at and past `count`.
    RowRange block(std::int64_t k) const;
    // One process's rows cut into blocks of different sizes, `blocks` (ascending, covering its
    // rows): blockRows then says no block's size.
    void cutInto(std::vector<RowRange> blocks);

private:
    friend RankBlocks recutBlocks(const RankGroup &group, RankBlocks division, std::int64_t blockRows);
    std::vector<RowRange> m_cut; // cutInto's blocks, where it cut them (recutBlocks cuts evenly again)
};
RankBlocks divideRows(const RankGroup &group, std::int64_t rows, std::int64_t blockRows); // collective
// The same ranks' rows cut into blocks of (the smallest asked for) `blockRows`: when what a
// rank holds beside its blocks is known only once the rows are divided. Collective.
RankBlocks recutBlocks(const RankGroup &group, RankBlocks division, std::int64_t blockRows);

// A group of one: no collective waits for anyone. It may still share its machine with
// `ranksOnThisNode` processes (a batch's ranks, each doing its own input), being the
// `rankOnThisNode`th of them.
class SoloRanks final : public RankGroup {
public:
    explicit SoloRanks(int ranksOnThisNode = 1, int rankOnThisNode = 0) : m_onNode(ranksOnThisNode), m_nodeRank(rankOnThisNode) {}
    int rank() const override { return 0; }
    int size() const override { return 1; }
    int ranksOnThisNode() const override { return m_onNode; }
    int rankOnThisNode() const override { return m_nodeRank; }
    void sum(std::span<std::int64_t>) const override {}
    void min(std::span<double>) const override {}
    void max(std::span<double>) const override {}
    std::int64_t exclusiveScan(std::int64_t) const override { return 0; }
    std::string broadcast(const std::string &text, int) const override { return text; }
    std::vector<std::string> gatherToRoot(const std::string &text) const override { return {text}; }
    RankParcels exchange(RankParcels toEach) const override { return toEach; }
    void agree(std::exception_ptr failure) const override;
    std::int64_t nextTask() const override { return m_next++; }
    void waitIdle() const override {}

private:
    int m_onNode;
    int m_nodeRank;
    mutable std::int64_t m_next = 0;
};

// While alive, ranks() is a group of one on this process. Alone on the machine (the other
// ranks wait idle), it takes the whole machine's memory budget and cores; otherwise it keeps
// its share of them.
class SoloRanksScope {
public:
    enum class Machine { Shared, ToItself };
    explicit SoloRanksScope(Machine machine = Machine::Shared);
    ~SoloRanksScope();
    SoloRanksScope(const SoloRanksScope &) = delete;
    SoloRanksScope &operator=(const SoloRanksScope &) = delete;

private:
    SoloRanks m_solo;
    const RankGroup *m_previous;
    int m_threads = 0; // OpenMP threads to restore; 0: unchanged
};

// Installs the group ranks() returns outside any SoloRanksScope (rank_session.cpp does).
void setWorldRanks(const RankGroup *group);

} // namespace sparsity::core
