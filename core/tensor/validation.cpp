// Validation of user-supplied layouts. Every check cites the invariant number from the
// layout's header; data is validated before any index is used.
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/coo_tensor.h"
#include "core/tensor/dense_tensor.h"
#include "core/tensor/row_sparse_tensor.h"
#include "core/tensor/sorting.h"
#include "core/util/errors.h"

#include <cstdint>
#include <string>

namespace sparsity::core {
namespace {

std::string str(std::int64_t value) { return std::to_string(value); }

} // namespace

template <class T>
void validateDense(const DenseTensor<T> &tensor)
{
    const auto expected = checkedNumel(tensor.shape);
    if (static_cast<std::int64_t>(tensor.values.size()) != expected)
        throw errors::invariant("dense", "D1", "values must have numel(shape)=" + str(expected) + " entries",
                                "got " + str(static_cast<std::int64_t>(tensor.values.size())));
}

template <class T>
std::optional<CooEntryIndex> firstIndexOutOfRange(const CooTensor<T> &tensor)
{
    for (int d = 0; d < tensor.sparseDims; ++d) {
        const auto extent = tensor.shape[static_cast<std::size_t>(d)];
        for (std::int64_t k = 0; k < tensor.nnz; ++k) {
            const auto i = tensor.index(d, k);
            if (i < 0 || i >= extent)
                return CooEntryIndex{d, k};
        }
    }
    return std::nullopt;
}

InputError cooIndexOutOfRange(const Shape &shape, int dim, std::int64_t entry, std::int64_t value)
{
    const auto d = str(dim);
    return errors::invariant("COO", "C4",
                             "indices[" + d + ", k] must be in [0, " + str(shape[static_cast<std::size_t>(dim)]) + ")",
                             "indices[" + d + ", " + str(entry) + "]=" + str(value));
}

template <class T>
void validateCoo(CooTensor<T> &tensor, bool detectCoalesced, std::int64_t firstEntry)
{
    const auto rank = tensor.rank();
    checkedNumel(tensor.shape);
    if (tensor.sparseDims < 0 || tensor.sparseDims > rank)
        throw errors::invariant("COO", "C1", "sparse dims must be in [0, rank=" + str(rank) + "]",
                                "got " + str(tensor.sparseDims));
    if (tensor.nnz < 0 || static_cast<std::int64_t>(tensor.indices.size()) != tensor.sparseDims * tensor.nnz)
        throw errors::invariant("COO", "C2",
                                "indices must have shape [" + str(tensor.sparseDims) + ", nnz=" + str(tensor.nnz) + "]",
                                "got " + str(static_cast<std::int64_t>(tensor.indices.size())) + " index entries");
    std::int64_t expectedValues = 0;
    if (__builtin_mul_overflow(tensor.nnz, tensor.denseSize(), &expectedValues)
        || static_cast<std::int64_t>(tensor.values.size()) != expectedValues)
        throw errors::invariant("COO", "C3",
                                "values must have nnz*" + str(tensor.denseSize()) + "=" + str(expectedValues) + " entries",
                                "got " + str(static_cast<std::int64_t>(tensor.values.size())));
    if (const auto bad = firstIndexOutOfRange(tensor))
        throw cooIndexOutOfRange(tensor.shape, bad->dim, firstEntry + bad->entry, tensor.index(bad->dim, bad->entry));
    const bool sortedUnique = cooIsSortedUnique(tensor);
    if (detectCoalesced)
        tensor.coalesced = sortedUnique;
    else if (tensor.coalesced && !sortedUnique)
        throw errors::invariant("COO", "C5", "a coalesced tensor must have sorted unique indices", "they are not");
}

void validateCompressedOutline(std::string_view tag,
                               const Shape &shape,
                               CompressedAxis axis,
                               std::span<const std::int64_t> indptr,
                               std::int64_t indices,
                               std::int64_t values)
{
    const std::string name(tag);
    if (shape.size() != 2)
        throw errors::invariant(name, "I1", "shape must be 2-d", "got " + shapeToString(shape));
    checkedNumel(shape);
    const auto major = axis == CompressedAxis::Row ? shape[0] : shape[1];
    // Compared as sizes: a major extent of 2^63-1 (a valid shape) has no int64 major + 1.
    const auto entries = static_cast<std::uint64_t>(major) + 1;
    if (indptr.size() != entries)
        throw errors::invariant(name, "I2", "indptr must have " + std::to_string(entries) + " entries",
                                "got " + str(static_cast<std::int64_t>(indptr.size())));
    if (indptr[0] != 0)
        throw compressedIndptrStart(tag, indptr[0]);
    if (indptr[static_cast<std::size_t>(major)] != indices || values != indices)
        throw compressedCountsDisagree(tag, major, indptr[static_cast<std::size_t>(major)], indices, values);
    for (std::int64_t i = 0; i < major; ++i) {
        const auto a = indptr[static_cast<std::size_t>(i)];
        const auto b = indptr[static_cast<std::size_t>(i + 1)];
        if (a > b)
            throw compressedIndptrDecreases(tag, i, a, b);
    }
}

InputError compressedIndptrStart(std::string_view tag, std::int64_t first)
{
    return errors::invariant(std::string(tag), "I3", "indptr[0] must be 0", "indptr[0]=" + str(first));
}

InputError
compressedCountsDisagree(std::string_view tag, std::int64_t major, std::int64_t end, std::int64_t indices, std::int64_t values)
{
    return errors::invariant(std::string(tag), "I4", "indptr[" + str(major) + "], len(indices) and len(data) must agree",
                             "got " + str(end) + ", " + str(indices) + ", " + str(values));
}

InputError compressedIndptrDecreases(std::string_view tag, std::int64_t at, std::int64_t a, std::int64_t b)
{
    return errors::invariant(std::string(tag), "I5", "indptr must be non-decreasing",
                             "indptr[" + str(at) + "]=" + str(a) + " > indptr[" + str(at + 1) + "]=" + str(b));
}

InputError compressedIndexOutOfRange(std::string_view tag, std::int64_t minor, std::int64_t entry, std::int64_t index)
{
    return errors::invariant(std::string(tag), "I6", "indices must be in [0, " + str(minor) + ")",
                             "indices[" + str(entry) + "]=" + str(index));
}

void noteCanonicalized(ValidationReport *report, std::string_view tag, std::string_view where, std::int64_t duplicates)
{
    if (report)
        report->add(Severity::Notice, std::string(tag) + " I7", std::string(where),
                    "indices were unsorted or duplicated within a slice: sorted, " + str(duplicates) + " duplicates summed",
                    duplicates);
}

template <class T>
void validateCompressed(CompressedTensor<T> &tensor, ValidationReport *report, std::string_view where, std::int64_t firstEntry)
{
    const auto tag = tensor.layoutTag();
    validateCompressedOutline(tag, tensor.shape, tensor.axis, tensor.indptr, static_cast<std::int64_t>(tensor.indices.size()),
                              static_cast<std::int64_t>(tensor.values.size()));
    const auto minor = tensor.minorSize();
    for (std::int64_t k = 0; k < tensor.nnz(); ++k) {
        const auto j = tensor.indices[static_cast<std::size_t>(k)];
        if (j < 0 || j >= minor)
            throw compressedIndexOutOfRange(tag, minor, firstEntry + k, j);
    }
    if (!compressedIsCanonical(tensor)) {
        const auto before = tensor.nnz();
        canonicalizeCompressed(tensor);
        noteCanonicalized(report, tag, where, before - tensor.nnz());
    }
}

template <class T>
void validateRowSparse(const RowSparseTensor<T> &tensor)
{
    if (tensor.shape.empty())
        throw errors::invariant("row_sparse", "R1", "rank must be >= 1", "got a 0-d shape");
    checkedNumel(tensor.shape);
    std::int64_t expected = 0;
    if (__builtin_mul_overflow(tensor.storedRows(), tensor.rowSize(), &expected)
        || static_cast<std::int64_t>(tensor.values.size()) != expected)
        throw errors::invariant(
            "row_sparse", "R2",
            "data must have shape [" + str(tensor.storedRows()) + ", ...] matching shape " + shapeToString(tensor.shape),
            "data has " + str(static_cast<std::int64_t>(tensor.values.size())) + " values, expected " + str(expected));
    validateRowSparseRows(tensor.shape, tensor.rows);
}

void validateRowSparseRows(const Shape &shape, std::span<const std::int64_t> rows)
{
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto r = rows[i];
        if (r < 0 || r >= shape[0])
            throw errors::invariant("row_sparse", "R3", "indices must be in [0, " + str(shape[0]) + ")",
                                    "indices[" + str(static_cast<std::int64_t>(i)) + "]=" + str(r));
        if (i > 0 && rows[i - 1] >= r)
            throw errors::invariant("row_sparse", "R4", "indices must be strictly increasing (sorted, unique)",
                                    "indices[" + str(static_cast<std::int64_t>(i - 1)) + "]=" + str(rows[i - 1]) + " >= indices["
                                        + str(static_cast<std::int64_t>(i)) + "]=" + str(r));
    }
}

#define SPARSITY_INSTANTIATE(T)                                                                                                  \
    template void validateDense<T>(const DenseTensor<T> &);                                                                      \
    template void validateCoo<T>(CooTensor<T> &, bool, std::int64_t);                                                            \
    template std::optional<CooEntryIndex> firstIndexOutOfRange<T>(const CooTensor<T> &);                                         \
    template void validateCompressed<T>(CompressedTensor<T> &, ValidationReport *, std::string_view, std::int64_t);              \
    template void validateRowSparse<T>(const RowSparseTensor<T> &);
SPARSITY_INSTANTIATE(float)
SPARSITY_INSTANTIATE(double)
SPARSITY_INSTANTIATE(std::uint8_t)
#undef SPARSITY_INSTANTIATE

} // namespace sparsity::core
