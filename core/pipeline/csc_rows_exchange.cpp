#include "core/pipeline/csc_rows_exchange.h"

#include "core/io/h5_reader.h"
#include "core/pipeline/entries_to_owners.h"
#include "core/tensor/conversions.h"
#include "core/util/errors.h"

#include <algorithm>
#include <limits>

namespace sparsity::core {
namespace {

using namespace exchange_detail;

// Columns [begin, end) of this rank: those whose entries begin in its even share of the entries
// (the last rank's run to the last column, empty ones after the last entry included).
RowRange columnsOfRank(const RankGroup &group, std::span<const std::int64_t> indptr)
{
    const auto columns = static_cast<std::int64_t>(indptr.size()) - 1;
    const auto share = rowsOfRank(indptr.back(), 1, group.rank(), group.size());
    const auto firstAtOrAfter = [&](std::int64_t entry) {
        return static_cast<std::int64_t>(std::lower_bound(indptr.begin(), indptr.end(), entry) - indptr.begin());
    };
    const auto begin = std::min(columns, firstAtOrAfter(share.begin));
    const auto end = group.rank() + 1 == group.size() ? columns : std::min(columns, firstAtOrAfter(share.end));
    return {begin, std::max(begin, end)};
}

// A rank's columns cut into rounds of at most `chunk` entries (a column of more is a round).
std::vector<RowRange> roundsOf(RowRange columns, std::span<const std::int64_t> indptr, std::int64_t chunk)
{
    std::vector<RowRange> rounds;
    for (auto c = columns.begin; c < columns.end;) {
        auto next = c + 1;
        while (next < columns.end && indptr[at(next + 1)] - indptr[at(c)] <= chunk)
            ++next;
        rounds.push_back({c, next});
        c = next;
    }
    return rounds;
}

// What pass 1 finds in a rank's columns: the entries each rank is sent, the first row out of
// range (I6, numbered in the whole), and whether the rows are canonical (I7).
struct ColumnsSurvey {
    std::vector<std::int64_t> toEach;
    double firstBad = kNone; // the entry, as the key the ranks' least is taken of
    std::int64_t firstBadRow = 0;
    bool canonical = true;
    std::int64_t duplicates = 0;
};

// Pass 1 over one round of columns: its rows alone.
void survey(ColumnsSurvey &found,
            RowRange round,
            std::span<const std::int64_t> indptr,
            std::span<const std::int64_t> rowsRead,
            std::int64_t rows,
            const RowOwners &owners)
{
    const auto base = indptr[at(round.begin)];
    std::vector<std::int64_t> sorted;
    for (auto c = round.begin; c < round.end; ++c) {
        const auto first = indptr[at(c)] - base, last = indptr[at(c + 1)] - base;
        for (auto k = first; k < last; ++k) {
            const auto row = rowsRead[at(k)];
            if (row < 0 || row >= rows) {
                if (static_cast<double>(base + k) < found.firstBad) {
                    found.firstBad = static_cast<double>(base + k);
                    found.firstBadRow = row;
                }
                continue;
            }
            ++found.toEach[owners.of(row)];
        }
        const auto column = rowsRead.subspan(at(first), at(last - first));
        if (std::adjacent_find(column.begin(), column.end(), std::greater_equal<>()) == column.end())
            continue;
        // Not strictly increasing: canonicalizing sorts it and sums its duplicates.
        found.canonical = false;
        sorted.assign(column.begin(), column.end());
        std::sort(sorted.begin(), sorted.end());
        found.duplicates += static_cast<std::int64_t>(sorted.end() - std::unique(sorted.begin(), sorted.end()));
    }
}

// One round of columns as COO entries (row, column), in file order.
template <class T>
CooTensor<T> entriesOf(CompressedTensor<T> &&slices, const Shape &shape, std::int64_t firstColumn)
{
    CooTensor<T> coo;
    coo.shape = shape;
    coo.sparseDims = 2;
    coo.nnz = slices.nnz();
    coo.indices.resize(2 * at(coo.nnz));
    for (std::int64_t c = 0; c < slices.majorSize(); ++c)
        for (auto k = slices.indptr[at(c)]; k < slices.indptr[at(c + 1)]; ++k) {
            coo.indices[at(k)] = slices.indices[at(k)];
            coo.indices[at(coo.nnz + k)] = firstColumn + c;
        }
    coo.values = std::move(slices.values);
    return coo;
}

template <class T>
Tensor cscInRounds(const RankGroup &group,
                   const H5File &file,
                   const ElementInfo &element,
                   std::span<const RowRange> rowsOfRanks,
                   ValidationReport *report,
                   bool *canonical)
{
    // Every rank checks the outline as a whole read does, before any index is read.
    const auto outline = agreeOn(group, [&] { return readCompressedOutline(file, element.path, report); });
    const std::span<const std::int64_t> indptr = outline.indptr;
    const auto rows = outline.shape[0];
    const auto perEntry = static_cast<std::int64_t>(2 * sizeof(std::int64_t) + sizeof(T));
    const auto rounds = roundsOf(columnsOfRank(group, indptr), indptr, entriesPerRound(perEntry));
    double mostRounds[] = {static_cast<double>(rounds.size())};
    group.max(mostRounds);
    const auto roundAt = [&](std::int64_t k) {
        return k < static_cast<std::int64_t>(rounds.size()) ? rounds[at(k)] : RowRange{};
    };
    const RowOwners owners(rowsOfRanks);

    // Pass 1, rows alone: what goes to each rank, I6 and I7.
    ColumnsSurvey found;
    found.toEach.assign(owners.ranks(), 0);
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(mostRounds[0]); ++k) {
        // Every rank agrees on every round's read, its own rounds ended or not (a collective).
        const auto round = roundAt(k);
        const auto rowsRead = agreeOn(group, [&] {
            if (round.count() == 0)
                return Buffer<std::int64_t>{};
            return readCompressedIndices(file, element.path, {indptr[at(round.begin)], indptr[at(round.end)]});
        });
        if (round.count() > 0)
            survey(found, round, indptr, rowsRead, rows, owners);
    }
    reportFirstOutOfRange(group, found.firstBad, outline.where, [&] {
        throw compressedIndexOutOfRange(outline.tag, rows, static_cast<std::int64_t>(found.firstBad), found.firstBadRow);
    });
    std::int64_t canonicalCheck[] = {found.canonical ? 0 : 1, found.duplicates};
    group.sum(canonicalCheck);
    if (canonicalCheck[0] > 0)
        noteCanonicalized(report, outline.tag, outline.where, canonicalCheck[1]);
    if (canonical)
        *canonical = canonicalCheck[0] == 0;

    // Pass 2: each round's entries, whole, sent to their rows' ranks and placed in file order.
    auto placed = ownEntriesFor<T>(group, found.toEach, outline.shape, 2, perEntry, outline.where);
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(mostRounds[0]); ++k) {
        const auto round = roundAt(k);
        auto part = agreeOn(group, [&] {
            if (round.count() == 0)
                return CooTensor<T>{outline.shape, 2, 0, {}, {}};
            auto slices = readCompressedSlices(file, element.path, outline, round);
            return entriesOf(std::move(std::get<CompressedTensor<T>>(slices.storage())), outline.shape, round.begin);
        });
        placed->place(group.exchange(packByOwner(part, owners)));
    }
    return agreeOn(group, [&] { return Tensor(Storage{placed->take()}); });
}

} // namespace

Tensor cscOfOwnRows(const RankGroup &group,
                    const H5File &file,
                    const ElementInfo &element,
                    std::span<const RowRange> rowsOfRanks,
                    ValidationReport *report,
                    bool *canonical)
{
    return withComputeType(element.dtype, [&](auto typeTag) {
        return cscInRounds<decltype(typeTag)>(group, file, element, rowsOfRanks, report, canonical);
    });
}

bool dividesMaskedCsc(const H5File &file, const ElementInfo &element)
{
    if (!element.masked || element.layout != Layout::Csc)
        return false;
    try {
        const auto data = describeElement(file, element.path + "/data");
        const auto mask = describeElement(file, element.path + "/mask");
        return data && !data->masked && mask && !mask->masked && mask->layout == Layout::Csc;
    } catch (const Error &) {
        return false; // the whole read reports it
    }
}

Tensor maskedCscOfOwnRows(const RankGroup &group,
                          const H5File &file,
                          const ElementInfo &element,
                          std::span<const RowRange> rowsOfRanks,
                          ValidationReport *report)
{
    const auto where = file.where(element.path);
    const auto dataInfo = agreeOn(group, [&] { return requireElement(file, element.path + "/data"); });
    bool dataCanonical = false, maskCanonical = false;
    auto data = cscOfOwnRows(group, file, dataInfo, rowsOfRanks, report, &dataCanonical);
    const auto maskInfo = agreeOn(group, [&] {
        const auto mask = requireMaskOf(file, element, false);
        requireMaskShapeOfParts(file, element, mask);
        return mask;
    });
    auto mask = cscOfOwnRows(group, file, maskInfo, rowsOfRanks, nullptr, &maskCanonical);
    // Both parts canonical, and whether their patterns agree on this rank's rows. Parts already
    // canonical (the usual file, as the exchange found it) are compared as they are; others are
    // coalesced, each copy let go as soon as its canonical form is made.
    struct Canonical {
        Tensor own;
        bool samePattern = false;
    };
    auto canonical = agreeOn(group, [&] {
        auto maskPart = std::move(std::get<CooTensor<float>>(mask.storage())); // bool is read as float
        mask = Tensor();
        return data.visit([&](auto &part) -> Canonical {
            using Part = std::decay_t<decltype(part)>;
            if constexpr (!std::is_same_v<Part, CooTensor<ValueOf<Part>>>) {
                throw InternalError("maskedCscOfOwnRows: the exchange gives coo entries");
            } else {
                auto dataPart = std::move(part);
                data = Tensor();
                if (!dataCanonical || !maskCanonical) {
                    dataPart = coalesce(dataPart);
                    maskPart = coalesce(maskPart);
                }
                Canonical out{{}, dataPart.indices == maskPart.indices};
                Mask bits(out.samePattern ? maskPart.values.size() : 0);
                for (std::size_t k = 0; k < bits.size(); ++k)
                    bits[k] = maskPart.values[k] != 0.0f;
                maskPart = {};
                out.own = Tensor(Storage{std::move(dataPart)});
                if (out.samePattern)
                    out.own.setMask(std::move(bits));
                return out;
            }
        });
    });
    return agreeOn(group, [&] {
        if (!group.onEveryRank(canonical.samePattern))
            rethrowWithContext(maskPatternMisfit(Layout::Csc), where);
        return std::move(canonical.own);
    });
}

} // namespace sparsity::core
