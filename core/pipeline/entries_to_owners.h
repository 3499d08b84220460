#pragma once
// Sending a sparse element's entries to the ranks that own their rows (sparsity-mpi's step,
// docs/SCALING.md): which rank owns a row, a part's entries packed by owner, and a rank's own
// rows' entries placed as rounds arrive, in file order. The coo exchange and the csc one
// (coo_rows_exchange.h) both go through these.
#include "core/parallel/rank_group.h"
#include "core/tensor/coo_tensor.h"
#include "core/tensor/row_range.h"
#include "core/util/errors.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sparsity::core::exchange_detail {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// The most a round of an exchange reads from a rank's share (it is packed and received too).
constexpr std::int64_t kExchangeRoundBytes = std::int64_t{8} << 20;

// Entries of `perEntry` bytes a round holds: a few MiB, an eighth of the budget at most, one
// at least.
inline std::int64_t entriesPerRound(std::int64_t perEntry)
{
    const auto budget = wholeTensorBudget().value_or(std::numeric_limits<std::int64_t>::max());
    return std::max<std::int64_t>(1, std::min<std::int64_t>(kExchangeRoundBytes, budget / 8) / perEntry);
}

// The rank owning each row: ranges are contiguous in rank order, so it is the first whose end
// lies past the row.
class RowOwners {
public:
    explicit RowOwners(std::span<const RowRange> rowsOfRanks)
    {
        for (const auto &rows : rowsOfRanks)
            m_ends.push_back(rows.end);
    }
    std::size_t of(std::int64_t row) const
    {
        return static_cast<std::size_t>(std::upper_bound(m_ends.begin(), m_ends.end(), row) - m_ends.begin());
    }
    std::size_t ranks() const { return m_ends.size(); }

private:
    std::vector<std::int64_t> m_ends;
};

// Each entry as bytes (its sparse indices, then its values), in the parcel of its row's rank,
// in entry order.
template <class T>
RankParcels packByOwner(const CooTensor<T> &part, const RowOwners &owners)
{
    const auto dims = static_cast<std::size_t>(part.sparseDims);
    const auto valuesPerEntry = at(part.denseSize());
    const auto entryBytes = dims * sizeof(std::int64_t) + valuesPerEntry * sizeof(T);
    RankParcels parcels;
    parcels.sizes.assign(owners.ranks(), 0);
    std::vector<std::uint32_t> owner(at(part.nnz));
    for (std::int64_t k = 0; k < part.nnz; ++k) {
        const auto r = owners.of(part.index(0, k));
        owner[at(k)] = static_cast<std::uint32_t>(r);
        parcels.sizes[r] += static_cast<std::int64_t>(entryBytes);
    }
    std::vector<std::size_t> next(owners.ranks(), 0);
    for (std::size_t r = 1; r < next.size(); ++r)
        next[r] = next[r - 1] + at(parcels.sizes[r - 1]);
    parcels.bytes.resize(next.empty() ? 0 : next.back() + at(parcels.sizes.back()));
    for (std::int64_t k = 0; k < part.nnz; ++k) {
        auto *p = parcels.bytes.data() + next[owner[at(k)]];
        next[owner[at(k)]] += entryBytes;
        for (std::size_t d = 0; d < dims; ++d, p += sizeof(std::int64_t)) {
            const auto index = part.index(static_cast<int>(d), k);
            std::memcpy(p, &index, sizeof index);
        }
        std::memcpy(p, part.values.data() + at(k) * valuesPerEntry, valuesPerEntry * sizeof(T));
    }
    return parcels;
}

// This rank's rows' entries, in file order: filled round by round at each sending rank's place
// (its offset among the senders, which hold the file's entries in rank order), so the tensor is
// allocated once, at its size.
template <class T>
class OwnEntries {
public:
    OwnEntries(const Shape &shape, int sparseDims, std::span<const std::int64_t> fromEach) : m_next(fromEach.size())
    {
        m_coo.shape = shape;
        m_coo.sparseDims = sparseDims;
        for (std::size_t r = 0; r < fromEach.size(); ++r) {
            m_next[r] = m_coo.nnz;
            m_coo.nnz += fromEach[r];
        }
        m_coo.indices.resize(at(sparseDims) * at(m_coo.nnz));
        m_coo.values.resize(at(m_coo.denseSize()) * at(m_coo.nnz));
    }

    // A round's parcels, in rank order, each its sender's entries in file order.
    void place(const RankParcels &received)
    {
        const auto dims = static_cast<std::size_t>(m_coo.sparseDims);
        const auto valuesPerEntry = at(m_coo.denseSize());
        const auto entryBytes = dims * sizeof(std::int64_t) + valuesPerEntry * sizeof(T);
        const auto *p = received.bytes.data();
        for (std::size_t r = 0; r < received.sizes.size(); ++r)
            for (std::size_t n = at(received.sizes[r]) / entryBytes; n > 0; --n) {
                const auto k = at(m_next[r]++);
                for (std::size_t d = 0; d < dims; ++d, p += sizeof(std::int64_t))
                    std::memcpy(&m_coo.indices[d * at(m_coo.nnz) + k], p, sizeof(std::int64_t));
                std::memcpy(m_coo.values.data() + k * valuesPerEntry, p, valuesPerEntry * sizeof(T));
                p += valuesPerEntry * sizeof(T);
            }
    }

    CooTensor<T> take()
    {
        validateCoo(m_coo, /*detectCoalesced=*/true);
        return std::move(m_coo);
    }

private:
    CooTensor<T> m_coo;
    std::vector<std::int64_t> m_next;
};

// What each rank sends this one, from what this one sends each (`toEach[r]`, counted in a
// first pass): where each sender's entries go among this rank's. Collective.
inline std::vector<std::int64_t> countsFromEach(const RankGroup &group, std::span<const std::int64_t> toEach)
{
    RankParcels counts;
    for (const auto count : toEach) {
        const auto *bytes = reinterpret_cast<const std::byte *>(&count);
        counts.bytes.insert(counts.bytes.end(), bytes, bytes + sizeof count);
        counts.sizes.push_back(sizeof count);
    }
    const auto received = group.exchange(std::move(counts));
    std::vector<std::int64_t> fromEach(received.sizes.size());
    std::memcpy(fromEach.data(), received.bytes.data(), fromEach.size() * sizeof(std::int64_t));
    return fromEach;
}

// This rank's own rows' entries, allocated once from what each rank counted it sends each
// (`toEach`), within the budget ("holding this rank's rows of its entries", named by `where`).
// Collective.
template <class T>
std::optional<OwnEntries<T>> ownEntriesFor(const RankGroup &group,
                                           std::span<const std::int64_t> toEach,
                                           const Shape &shape,
                                           int sparseDims,
                                           std::int64_t perEntry,
                                           const std::string &where)
{
    const auto fromEach = countsFromEach(group, toEach);
    std::int64_t own = 0;
    for (const auto count : fromEach)
        own += count;
    return agreeOn(group, [&] {
        requireWithinBudget(bytesFor(own, static_cast<std::size_t>(perEntry)), where, "holding this rank's rows of its entries");
        return std::optional<OwnEntries<T>>(std::in_place, shape, sparseDims, fromEach);
    });
}

// No entry found: the key of a rank that found no index out of range.
constexpr double kNone = std::numeric_limits<double>::infinity();

// Every rank learns whether any rank's key (the position of its first index out of range, in a
// whole read's order) is set; the rank whose key is least throws what `validate` throws (the
// whole read's error for it), named by `where`, and every rank throws it. Collective.
template <class Validate>
void reportFirstOutOfRange(const RankGroup &group, double mine, const std::string &where, Validate &&validate)
{
    double least[] = {mine};
    group.min(least);
    if (least[0] == kNone)
        return;
    agreeOn(group, [&] {
        if (mine == least[0]) {
            try {
                validate();
            } catch (const Error &error) {
                rethrowWithContext(error, where);
            }
        }
    });
    throw InternalError("an index out of range that no rank reports");
}

} // namespace sparsity::core::exchange_detail
