#pragma once
// CompressedTensor<T>: CSR (major axis = rows) and CSC (major axis = columns), 2-d, the
// layout of scipy.sparse and anndata's csr_matrix / csc_matrix.
//   indptr   [major + 1]   entries of major slice i are [indptr[i], indptr[i+1])
//   indices  [nnz]         minor index of each entry
//   values   [nnz]
//
// Invariants (X is CSR or CSC):
//   X I1  rank == 2
//   X I2  indptr.size() == major + 1
//   X I3  indptr[0] == 0
//   X I4  indptr[major] == indices.size() == values.size()
//   X I5  indptr is non-decreasing
//   X I6  0 <= indices[k] < minor
//   X I7  minor indices sorted and unique within each major slice (canonical form). Data that
//         breaks only I7 is accepted: it is sorted and duplicates are summed, with a notice.
#include "core/tensor/buffer.h"
#include "core/tensor/shape.h"
#include "core/util/errors.h"
#include "core/util/validation_report.h"

#include <span>
#include <string_view>

namespace sparsity::core {

enum class CompressedAxis { Row, Column };

template <class T>
struct CompressedTensor {
    Shape shape; // [rows, cols]
    CompressedAxis axis = CompressedAxis::Row;
    Buffer<std::int64_t> indptr;
    Buffer<std::int64_t> indices;
    Buffer<T> values;

    std::int64_t majorSize() const { return axis == CompressedAxis::Row ? shape[0] : shape[1]; }
    std::int64_t minorSize() const { return axis == CompressedAxis::Row ? shape[1] : shape[0]; }
    std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }
    std::string_view layoutTag() const { return axis == CompressedAxis::Row ? "CSR" : "CSC"; }
};

// Throws InputError citing I1..I6; repairs I7 in place and records a notice in `report`.
// `firstEntry`: the tensor is a range of an element's slices whose first entry is that one of
// the element (a block of rows read): I6 numbers entries in the element, as a whole read does.
template <class T>
void validateCompressed(CompressedTensor<T> &tensor,
                        ValidationReport *report,
                        std::string_view where,
                        std::int64_t firstEntry = 0);

// The checks validateCompressed makes before the indices' values (I1 to I5), of a tensor whose
// indptr is read and whose indices and values are counted: for a reader that divides the
// entries (sparsity-mpi) and checks the rest part by part, with the messages below. `tag` is
// "CSR" or "CSC".
void validateCompressedOutline(std::string_view tag,
                               const Shape &shape,
                               CompressedAxis axis,
                               std::span<const std::int64_t> indptr,
                               std::int64_t indices,
                               std::int64_t values);
// The errors of I3 (indptr[0] = `first`, not 0), I4 (indptr[major] = `end`, and the indices' and
// values' counts, not all equal) and I5 (indptr[at] = `a` > indptr[at + 1] = `b`): what
// validateCompressedOutline throws, and a reader of some rows (numbered in the whole) too.
InputError compressedIndptrStart(std::string_view tag, std::int64_t first);
InputError
compressedCountsDisagree(std::string_view tag, std::int64_t major, std::int64_t end, std::int64_t indices, std::int64_t values);
InputError compressedIndptrDecreases(std::string_view tag, std::int64_t at, std::int64_t a, std::int64_t b);
// I6's error for indices[entry] = index outside [0, minor), the entry numbered in the whole.
InputError compressedIndexOutOfRange(std::string_view tag, std::int64_t minor, std::int64_t entry, std::int64_t index);
// I7's notice: unsorted or duplicated indices were sorted, `duplicates` summed.
void noteCanonicalized(ValidationReport *report, std::string_view tag, std::string_view where, std::int64_t duplicates);

} // namespace sparsity::core
