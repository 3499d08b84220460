#include "core/parallel/rank_group.h"

#include "core/util/errors.h"

#include <algorithm>
#include <atomic>
#include <omp.h>

namespace sparsity::core {
namespace {

SoloRanks g_alone;
const RankGroup *g_world = &g_alone;
// A SoloRanksScope's group. Not thread-local: the I/O thread of a pipeline works for the
// command's thread and must see the same group.
std::atomic<const RankGroup *> g_current{nullptr};
std::atomic<bool> g_failureShared{false};

} // namespace

std::int64_t RankGroup::sum(std::int64_t value) const
{
    sum(std::span<std::int64_t>(&value, 1));
    return value;
}

std::vector<std::byte> gatheredOnEveryRank(const RankGroup &group, std::span<const std::byte> mine)
{
    if (group.isSolo())
        return {mine.begin(), mine.end()};
    RankParcels toEach;
    for (int r = 0; r < group.size(); ++r) {
        toEach.bytes.insert(toEach.bytes.end(), mine.begin(), mine.end());
        toEach.sizes.push_back(static_cast<std::int64_t>(mine.size()));
    }
    return group.exchange(std::move(toEach)).bytes;
}

bool RankGroup::onEveryRank(bool value) const
{
    double all[] = {value ? 1.0 : 0.0};
    min(all);
    return all[0] > 0;
}

void SoloRanks::agree(std::exception_ptr failure) const
{
    if (failure)
        std::rethrow_exception(failure);
}

const RankGroup &ranks()
{
    const auto *current = g_current.load();
    return current ? *current : *g_world;
}

bool failureIsShared() { return ranks().isSolo() || g_failureShared.load(); }

void markFailureShared() { g_failureShared.store(true); }

void setWorldRanks(const RankGroup *group) { g_world = group ? group : &g_alone; }

SoloRanksScope::SoloRanksScope(Machine machine)
    : m_solo(machine == Machine::ToItself ? 1 : ranks().ranksOnThisNode(), ranks().rankOnThisNode()),
      m_previous(g_current.exchange(&m_solo))
{
    if (machine == Machine::ToItself && m_previous == nullptr && !g_world->isSolo()) {
        m_threads = omp_get_max_threads();
        omp_set_num_threads(omp_get_num_procs());
    }
}

SoloRanksScope::~SoloRanksScope()
{
    g_current.store(m_previous);
    if (m_threads > 0)
        omp_set_num_threads(m_threads);
}

RowRange rowsOfRank(std::int64_t rows, std::int64_t unit, int rank, int size)
{
    unit = std::max<std::int64_t>(1, unit);
    const auto units = (rows + unit - 1) / unit;
    const auto firstUnit = units * rank / size, endUnit = units * (rank + 1) / size;
    return {std::min(rows, firstUnit * unit), std::min(rows, endUnit * unit)};
}

} // namespace sparsity::core

namespace sparsity::core {

RowRange RankBlocks::block(std::int64_t k) const
{
    if (!m_cut.empty())
        return k < std::ssize(m_cut) ? m_cut[static_cast<std::size_t>(k)] : RowRange{mine.end, mine.end};
    const auto first = std::min(mine.end, mine.begin + k * blockRows);
    return {first, std::min(mine.end, first + blockRows)};
}

void RankBlocks::cutInto(std::vector<RowRange> blocks)
{
    if (ofRanks.size() != 1 || (!blocks.empty() && (blocks.front().begin != mine.begin || blocks.back().end != mine.end)))
        throw InternalError("RankBlocks::cutInto: one process's rows, all of them");
    m_cut = std::move(blocks);
    count = rounds = std::ssize(m_cut);
}

RankBlocks divideRows(const RankGroup &group, std::int64_t rows, std::int64_t blockRows)
{
    double smallest[] = {static_cast<double>(std::max<std::int64_t>(1, blockRows))};
    group.min(smallest);
    const auto agreed = static_cast<std::int64_t>(smallest[0]);
    RankBlocks b;
    for (int r = 0; r < group.size(); ++r)
        b.ofRanks.push_back(rowsOfRank(rows, agreed, r, group.size()));
    b.mine = b.ofRanks[static_cast<std::size_t>(group.rank())];
    return recutBlocks(group, std::move(b), agreed);
}

RankBlocks recutBlocks(const RankGroup &group, RankBlocks division, std::int64_t blockRows)
{
    double smallest[] = {static_cast<double>(std::max<std::int64_t>(1, blockRows))};
    group.min(smallest);
    division.blockRows = static_cast<std::int64_t>(smallest[0]);
    division.m_cut.clear();
    division.count = (division.mine.count() + division.blockRows - 1) / division.blockRows;
    double most[] = {static_cast<double>(division.count)};
    group.max(most);
    division.rounds = static_cast<std::int64_t>(most[0]);
    return division;
}

} // namespace sparsity::core
