#include "core/pipeline/coo_rows_exchange.h"

#include "core/io/h5_reader.h"
#include "core/pipeline/csc_rows_exchange.h"
#include "core/pipeline/entries_to_owners.h"
#include "core/util/errors.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace sparsity::core {
namespace {

using namespace exchange_detail;

// The key of an entry's index out of range in validateCoo's order (dim, then entry), over the
// whole file's `entries`: the least key over every rank is the index a whole read reports.
double outOfRangeKey(int dim, std::int64_t entry, std::int64_t entries)
{
    return static_cast<double>(dim) * static_cast<double>(entries) + static_cast<double>(entry);
}

// Across ranks: the entries are read in rounds of `chunk` from each rank's share, twice. First
// their rows alone, to count what each rank sends each other (so each knows where what it
// receives goes, and dim 0's indices are checked); then whole, each round sent to its rows'
// ranks and placed. A rank holds its own rows' entries and a round, not its share twice.
template <class T>
Tensor exchangeInRounds(const RankGroup &group,
                        const H5File &file,
                        const std::string &path,
                        const ElementInfo &element,
                        const CooExtent &extent,
                        std::span<const RowRange> rowsOfRanks)
{
    const auto where = file.where(element.path);
    const auto share = rowsOfRank(extent.entries, 1, group.rank(), group.size());
    const auto perEntry = static_cast<std::int64_t>(sizeof(std::int64_t)) * extent.sparseDims
                          + static_cast<std::int64_t>(sizeof(T))
                                * numel(element.shape, static_cast<std::size_t>(extent.sparseDims), element.shape.size());
    // A round is read, packed and received at once: a few MiB, an eighth of the budget at most.
    const auto chunk = entriesPerRound(perEntry);
    double mostRounds[] = {static_cast<double>((share.count() + chunk - 1) / chunk)};
    group.max(mostRounds);
    const auto rounds = static_cast<std::int64_t>(mostRounds[0]);
    const auto roundOf = [&](std::int64_t k) {
        const auto begin = std::min(share.end, share.begin + k * chunk);
        return RowRange{begin, std::min(share.end, begin + chunk)};
    };
    const RowOwners owners(rowsOfRanks);
    const auto rows = element.shape[0];

    // Rows: what goes to each rank, and the first row out of range.
    std::vector<std::int64_t> toEach(owners.ranks(), 0);
    double firstBadRow = kNone;
    for (std::int64_t k = 0; k < rounds; ++k) {
        const auto entries = roundOf(k);
        const auto rowsRead = agreeOn(group, [&] { return readCooIndices(file, path, entries, 1); });
        for (std::size_t j = 0; j < rowsRead.size(); ++j) {
            if (rowsRead[j] < 0 || rowsRead[j] >= rows)
                firstBadRow =
                    std::min(firstBadRow, outOfRangeKey(0, entries.begin + static_cast<std::int64_t>(j), extent.entries));
            else
                ++toEach[owners.of(rowsRead[j])];
        }
    }
    reportFirstOutOfRange(group, firstBadRow, where, [&] {
        const auto entry = static_cast<std::int64_t>(firstBadRow);
        std::visit(
            [&](auto &t) {
                if constexpr (requires { t.sparseDims; })
                    validateCoo(t, /*detectCoalesced=*/false, entry);
            },
            readCooEntries(file, path, {entry, entry + 1}).storage());
    });

    auto placed = ownEntriesFor<T>(group, toEach, element.shape, extent.sparseDims, perEntry, where);

    // Entries: each round sent to its rows' ranks, until a round holds an index out of range
    // (dims after the first); then every rank looks through the rest of its share for its first.
    const auto readRound = [&](std::int64_t k) {
        auto round = readCooEntries(file, path, roundOf(k));
        return std::move(std::get<CooTensor<T>>(round.storage()));
    };
    const auto keyOf = [&](const CooTensor<T> &part, std::int64_t first) {
        const auto bad = firstIndexOutOfRange(part);
        return bad ? outOfRangeKey(bad->dim, first + bad->entry, extent.entries) : kNone;
    };
    for (std::int64_t k = 0; k < rounds; ++k) {
        auto part = agreeOn(group, [&] { return readRound(k); });
        double mine[] = {keyOf(part, roundOf(k).begin)};
        group.min(mine);
        if (mine[0] != kNone) {
            double firstBad = kNone;
            std::int64_t badRound = -1;
            agreeOn(group, [&] {
                for (std::int64_t later = k; later < rounds; ++later)
                    if (const auto key = keyOf(later == k ? part : readRound(later), roundOf(later).begin); key < firstBad) {
                        firstBad = key;
                        badRound = later;
                    }
            });
            reportFirstOutOfRange(group, firstBad, where, [&] {
                auto bad = readRound(badRound);
                validateCoo(bad, /*detectCoalesced=*/false, roundOf(badRound).begin);
            });
        }
        auto packed = packByOwner(part, owners);
        part = {};
        placed->place(group.exchange(std::move(packed)));
    }
    return agreeOn(group, [&] { return Tensor(Storage{placed->take()}); });
}

// `rowsOfRanks[r]`: the rows rank r owns, contiguous in rank order. A COO tensor whose entries
// index no dim (a dense tensor in one entry) is read whole by every rank.
Tensor readCooOfOwnRows(const RankGroup &group,
                        const H5File &file,
                        const std::string &path,
                        std::span<const RowRange> rowsOfRanks,
                        ValidationReport *report)
{
    const auto extent = agreeOn(group, [&] { return describeCooEntries(file, path); });
    if (extent.sparseDims == 0)
        return agreeOn(group, [&] { return readTensor(file, path, report); });
    if (!group.isSolo()) {
        // The element's own checks (C1 to C3) and its conversion's note, as a whole read gives
        // them, before any entry is read.
        const auto element = agreeOn(group, [&] {
            readCooEntries(file, path, {0, 0}, report);
            return requireElement(file, path);
        });
        return withComputeType(element.dtype, [&](auto typeTag) {
            return exchangeInRounds<decltype(typeTag)>(group, file, path, element, extent, rowsOfRanks);
        });
    }
    // Alone: every entry in file order, what the exchange would give.
    auto whole = agreeOn(group, [&] { return readCooEntries(file, path, {0, extent.entries}, report); });
    agreeOn(group, [&] {
        std::visit(
            [&](auto &t) {
                if constexpr (requires { t.sparseDims; }) {
                    try {
                        validateCoo(t, /*detectCoalesced=*/true);
                    } catch (const Error &error) {
                        rethrowWithContext(error, file.where(requireElement(file, path).path));
                    }
                }
            },
            whole.storage());
    });
    return whole;
}

// A masked_tensor of COO data with a COO mask of as many sparse dims: each part divided by rows
// (its checks as a whole read makes them, in its order: the data's, the mask's dtype, the
// mask's, its shape, its pattern), so each rank holds its rows of both, in file order, entry
// for entry: the mask's values give the rank's tensor its mask. The patterns are compared share
// by share, in rounds, before any entry is exchanged: equal shares everywhere are the whole
// patterns' equality, which no comparison of the exchanged rows could tell.
Tensor maskedCooOfOwnRows(const RankGroup &group,
                          const H5File &file,
                          const ElementInfo &element,
                          std::span<const RowRange> rowsOfRanks,
                          ValidationReport *report)
{
    const auto where = file.where(element.path);
    auto data = readCooOfOwnRows(group, file, element.path + "/data", rowsOfRanks, report);
    struct Parts {
        ElementInfo mask;
        CooExtent dataEntries, maskEntries;
    };
    const auto parts = agreeOn(group, [&] {
        return Parts{requireMaskOf(file, element, data.isMasked()), describeCooEntries(file, element.path + "/data"),
                     describeCooEntries(file, element.path + "/mask")};
    });
    agreeOn(group, [&] { requireMaskShapeOfParts(file, element, parts.mask); });
    const auto mask = readCooOfOwnRows(group, file, element.path + "/mask", rowsOfRanks, nullptr);
    // This rank's share of both patterns, compared a round at a time (no collective inside).
    const bool samePattern = agreeOn(group, [&] {
        if (parts.dataEntries.entries != parts.maskEntries.entries)
            return false;
        const auto share = rowsOfRank(parts.dataEntries.entries, 1, group.rank(), group.size());
        const auto chunk = std::max<std::int64_t>(1, kExchangeRoundBytes / (16 * parts.dataEntries.sparseDims));
        for (auto begin = share.begin; begin < share.end; begin += chunk) {
            const RowRange entries{begin, std::min(share.end, begin + chunk)};
            if (readCooIndices(file, element.path + "/data", entries, parts.dataEntries.sparseDims)
                != readCooIndices(file, element.path + "/mask", entries, parts.maskEntries.sparseDims))
                return false;
        }
        return true;
    });
    return agreeOn(group, [&] {
        if (!group.onEveryRank(samePattern))
            rethrowWithContext(maskPatternMisfit(Layout::Coo), where);
        Mask bits = mask.visit([](const auto &t) {
            Mask out(t.values.size());
            for (std::size_t k = 0; k < out.size(); ++k)
                out[k] = t.values[k] != 0;
            return out;
        });
        data.setMask(std::move(bits));
        return std::move(data);
    });
}

// A masked_tensor whose parts can both be divided by rows (COO, as many sparse dims).
bool dividesMaskedCoo(const H5File &file, const ElementInfo &element)
{
    if (!element.masked || element.layout != Layout::Coo)
        return false;
    try {
        const auto mask = describeElement(file, element.path + "/mask");
        return mask && !mask->masked && mask->layout == Layout::Coo
               && describeCooEntries(file, element.path + "/mask").sparseDims
                      == describeCooEntries(file, element.path + "/data").sparseDims;
    } catch (const Error &) {
        return false; // the whole read reports it
    }
}

} // namespace

Tensor readOfOwnRows(const RankGroup &group,
                     const H5File &file,
                     const std::string &path,
                     std::span<const RowRange> rowsOfRanks,
                     ValidationReport *report)
{
    const auto element = agreeOn(group, [&] { return requireElement(file, path); });
    if (element.layout == Layout::Coo && !element.masked)
        return readCooOfOwnRows(group, file, path, rowsOfRanks, report);
    if (!group.isSolo() && element.layout == Layout::Csc && !element.masked)
        return cscOfOwnRows(group, file, element, rowsOfRanks, report);
    if (!group.isSolo() && agreeOn(group, [&] { return dividesMaskedCoo(file, element); }))
        return maskedCooOfOwnRows(group, file, element, rowsOfRanks, report);
    if (!group.isSolo() && agreeOn(group, [&] { return dividesMaskedCsc(file, element); }))
        return maskedCscOfOwnRows(group, file, element, rowsOfRanks, report);
    return agreeOn(group, [&] { return readTensor(file, path, report); });
}

} // namespace sparsity::core
