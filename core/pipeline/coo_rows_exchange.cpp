#include "core/pipeline/coo_rows_exchange.h"

#include "core/io/h5_reader.h"
#include "core/util/errors.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Each entry as bytes: its sparse indices, then its values.
template <class T>
std::vector<std::vector<std::byte>> packByOwner(const CooTensor<T> &part, std::span<const RowRange> rowsOfRanks)
{
    const auto dims = static_cast<std::size_t>(part.sparseDims);
    const auto valuesPerEntry = at(part.denseSize());
    const auto entryBytes = dims * sizeof(std::int64_t) + valuesPerEntry * sizeof(T);
    std::vector<std::int64_t> ends;
    for (const auto &rows : rowsOfRanks)
        ends.push_back(rows.end);
    std::vector<std::size_t> owner(at(part.nnz)), counts(rowsOfRanks.size(), 0);
    for (std::int64_t k = 0; k < part.nnz; ++k) {
        // Ranges are contiguous in rank order: the owner is the first whose end lies past the row.
        owner[at(k)] = static_cast<std::size_t>(std::upper_bound(ends.begin(), ends.end(), part.index(0, k)) - ends.begin());
        ++counts[owner[at(k)]];
    }
    std::vector<std::vector<std::byte>> toEach(rowsOfRanks.size());
    for (std::size_t r = 0; r < toEach.size(); ++r)
        toEach[r].reserve(counts[r] * entryBytes);
    for (std::int64_t k = 0; k < part.nnz; ++k) {
        auto &out = toEach[owner[at(k)]];
        const auto offset = out.size();
        out.resize(offset + entryBytes);
        auto *p = out.data() + offset;
        for (std::size_t d = 0; d < dims; ++d, p += sizeof(std::int64_t)) {
            const auto index = part.index(static_cast<int>(d), k);
            std::memcpy(p, &index, sizeof index);
        }
        std::memcpy(p, part.values.data() + at(k) * valuesPerEntry, valuesPerEntry * sizeof(T));
    }
    return toEach;
}

// The entries received, in rank order, as one COO tensor of `shape`.
template <class T>
CooTensor<T> unpack(std::vector<std::vector<std::byte>> received, const Shape &shape, int sparseDims)
{
    CooTensor<T> coo;
    coo.shape = shape;
    coo.sparseDims = sparseDims;
    const auto dims = static_cast<std::size_t>(sparseDims);
    const auto valuesPerEntry = at(coo.denseSize());
    const auto entryBytes = dims * sizeof(std::int64_t) + valuesPerEntry * sizeof(T);
    for (const auto &bytes : received)
        coo.nnz += static_cast<std::int64_t>(bytes.size() / entryBytes);
    coo.indices.resize(dims * at(coo.nnz));
    coo.values.resize(valuesPerEntry * at(coo.nnz));
    std::size_t k = 0;
    for (auto &bytes : received) {
        for (const auto *p = bytes.data(); p != bytes.data() + bytes.size(); ++k) {
            for (std::size_t d = 0; d < dims; ++d, p += sizeof(std::int64_t))
                std::memcpy(&coo.indices[d * at(coo.nnz) + k], p, sizeof(std::int64_t));
            std::memcpy(coo.values.data() + k * valuesPerEntry, p, valuesPerEntry * sizeof(T));
            p += valuesPerEntry * sizeof(T);
        }
        bytes = {}; // its entries are unpacked
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
    auto part = agreeOn(group, [&] { return readCooEntries(file, path, share, report); });

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
