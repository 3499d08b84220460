#include "core/pipeline/coo_rows_exchange.h"

#include "core/io/h5_reader.h"
#include "core/util/errors.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Each entry as bytes (its sparse indices, then its values), in the parcel of its row's rank,
// in entry order.
template <class T>
RankParcels packByOwner(const CooTensor<T> &part, std::span<const RowRange> rowsOfRanks)
{
    const auto dims = static_cast<std::size_t>(part.sparseDims);
    const auto valuesPerEntry = at(part.denseSize());
    const auto entryBytes = dims * sizeof(std::int64_t) + valuesPerEntry * sizeof(T);
    std::vector<std::int64_t> ends;
    for (const auto &rows : rowsOfRanks)
        ends.push_back(rows.end);
    RankParcels parcels;
    parcels.sizes.assign(rowsOfRanks.size(), 0);
    std::vector<std::uint32_t> owner(at(part.nnz));
    for (std::int64_t k = 0; k < part.nnz; ++k) {
        // Ranges are contiguous in rank order: the owner is the first whose end lies past the row.
        const auto r = std::upper_bound(ends.begin(), ends.end(), part.index(0, k)) - ends.begin();
        owner[at(k)] = static_cast<std::uint32_t>(r);
        parcels.sizes[at(r)] += static_cast<std::int64_t>(entryBytes);
    }
    std::vector<std::size_t> next(rowsOfRanks.size(), 0);
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

// The entries received (rank order, then each rank's order) as one COO tensor of `shape`.
template <class T>
CooTensor<T> unpack(const RankParcels &received, const Shape &shape, int sparseDims)
{
    CooTensor<T> coo;
    coo.shape = shape;
    coo.sparseDims = sparseDims;
    const auto dims = static_cast<std::size_t>(sparseDims);
    const auto valuesPerEntry = at(coo.denseSize());
    const auto entryBytes = dims * sizeof(std::int64_t) + valuesPerEntry * sizeof(T);
    coo.nnz = static_cast<std::int64_t>(received.bytes.size() / entryBytes);
    coo.indices.resize(dims * at(coo.nnz));
    coo.values.resize(valuesPerEntry * at(coo.nnz));
    const auto *p = received.bytes.data();
    for (std::size_t k = 0; k < at(coo.nnz); ++k) {
        for (std::size_t d = 0; d < dims; ++d, p += sizeof(std::int64_t))
            std::memcpy(&coo.indices[d * at(coo.nnz) + k], p, sizeof(std::int64_t));
        std::memcpy(coo.values.data() + k * valuesPerEntry, p, valuesPerEntry * sizeof(T));
        p += valuesPerEntry * sizeof(T);
    }
    validateCoo(coo, /*detectCoalesced=*/true);
    return coo;
}

} // namespace

Tensor readCooOfOwnRows(const RankGroup &group,
                        const H5File &file,
                        const std::string &path,
                        std::span<const RowRange> rowsOfRanks,
                        ValidationReport *report)
{
    const auto extent = agreeOn(group, [&] { return describeCooEntries(file, path); });
    if (extent.sparseDims == 0)
        return agreeOn(group, [&] { return readTensor(file, path, report); });
    const auto share = rowsOfRank(extent.entries, 1, group.rank(), group.size());
    auto part = agreeOn(group, [&] {
        // Across ranks a share is held twice at once, packed for the exchange and received.
        if (!group.isSolo()) {
            const auto element = requireElement(file, path);
            const auto perEntry = static_cast<std::int64_t>(sizeof(std::int64_t)) * extent.sparseDims
                                  + static_cast<std::int64_t>(dtypeSize(computeTypeFor(element.dtype)))
                                        * numel(element.shape, static_cast<std::size_t>(extent.sparseDims), element.shape.size());
            requireWithinBudget(2 * bytesFor(share.count(), static_cast<std::size_t>(perEntry)), file.where(element.path),
                                "exchanging this rank's share of its entries");
        }
        return readCooEntries(file, path, share, report);
    });

    // C4 over the whole file: the first bad index in validateCoo's order (dim, then entry) is
    // on the rank whose share holds it; that rank reports it, numbered from its share's start.
    constexpr double kNone = std::numeric_limits<double>::infinity();
    double first[] = {kNone};
    part.visit([&](const auto &t) {
        if constexpr (requires { t.sparseDims; })
            if (const auto bad = firstIndexOutOfRange(t))
                first[0] = static_cast<double>(bad->dim) * static_cast<double>(extent.entries)
                           + static_cast<double>(share.begin + bad->entry);
    });
    const double mine = first[0];
    group.min(first);
    agreeOn(group, [&] {
        if (mine != kNone && mine == first[0])
            std::visit(
                [&](auto &t) {
                    if constexpr (requires { t.sparseDims; }) {
                        try {
                            validateCoo(t, /*detectCoalesced=*/false, share.begin);
                        } catch (const Error &error) {
                            rethrowWithContext(error, file.where(requireElement(file, path).path));
                        }
                    }
                },
                part.storage());
    });

    if (group.isSolo()) { // its share is every entry in file order: what the exchange would give
        std::visit(
            [](auto &t) {
                if constexpr (requires { t.sparseDims; })
                    validateCoo(t, /*detectCoalesced=*/true);
            },
            part.storage());
        return part;
    }
    return std::visit(
        [&](auto &t) -> Tensor {
            using S = std::decay_t<decltype(t)>;
            if constexpr (requires { t.sparseDims; }) {
                using T = ValueOf<S>;
                const Shape shape = t.shape;
                auto toEach = packByOwner(t, rowsOfRanks);
                t = {}; // the share is packed
                return Tensor(Storage{unpack<T>(group.exchange(std::move(toEach)), shape, extent.sparseDims)});
            } else {
                throw InternalError("readCooOfOwnRows: a COO read gave another layout");
            }
        },
        part.storage());
}

} // namespace sparsity::core
