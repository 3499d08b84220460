#pragma once
// Reads one element of an HDF5 file into a Tensor: plain datasets of any rank and numeric
// dtype, anndata csr/csc, 10x Genomics CSC, h5sparse, and our coo_tensor, row_sparse and
// masked_tensor. Values are read into the compute type (computeTypeFor) with a notice when
// that converts. Every sparse element is validated against its layout's invariants; an error
// names "file:/dataset" and the invariant.
#include "core/io/h5_catalog.h"
#include "core/io/raw_values.h"
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/row_range.h"
#include "core/tensor/tensor.h"
#include "core/util/validation_report.h"

#include <memory>
#include <optional>
#include <span>
#include <type_traits>

namespace sparsity::core {

// Whether readTensor reads `element` of `file` a range of rows at a time: dense and CSR elements,
// and masked_tensors of dense data with a dense mask or of CSR data with a CSR mask
// (row_sparse has RowSparseRowReader below).
// False too when the mask cannot be described: the whole read then reports why.
bool readableByRows(const H5File &file, const ElementInfo &element);

// `rows` reads rows [begin, end) along dim 0 by hyperslab, where readableByRows says it can.
Tensor readTensor(const H5File &file,
                  const std::string &path,
                  ValidationReport *report = nullptr,
                  std::optional<RowRange> rows = std::nullopt);

// How many entries the COO element at `path` stores and how many dims they index, from the shape
// of its indices, read before the entries are divided among ranks.
struct CooExtent {
    int sparseDims = 0;
    std::int64_t entries = 0;
};
CooExtent describeCooEntries(const H5File &file, const std::string &path);
// Entries [begin, end) of the COO element at `path` (a rank's share of them), as a COO tensor of
// the element's shape holding those entries: checked as readTensor checks the element, except
// C4, which the caller checks with validateCoo(tensor, true, entries.begin) so that messages
// number the entries as a whole read does.
Tensor readCooEntries(const H5File &file, const std::string &path, RowRange entries, ValidationReport *report = nullptr);
// Their indices alone, of the first `dims` dims (unchecked; dim-major): dim 0 is the rows they
// lie in, how entries are divided among ranks before they are read. The element's indices must
// be readCooEntries-checked (2-d, and `entries` within them).
Buffer<std::int64_t> readCooIndices(const H5File &file, const std::string &path, RowRange entries, std::int64_t dims);

// A masked_tensor's checks between its parts, with a whole read's messages (the caller adds the
// element's name): M1, the mask's shape is the data's; M2, a sparse mask has the data's layout
// and pattern (`mask`: its layout); and the mask described before it is read: it exists, bool
// or uint8 (M4), and the data (`dataIsMasked`: read or described before) is not itself masked.
InputError maskShapeMisfit(const Shape &data, const Shape &mask);
InputError maskPatternMisfit(Layout mask);
ElementInfo requireMaskOf(const H5File &file, const ElementInfo &info, bool dataIsMasked);
// M1 for a masked_tensor whose parts are read divided (each rank its rows): a mask of another
// shape than the data's is read whole first, for its own checks, as a whole read reads it, then
// refused, naming the element (its rows are not the data's to divide).
void requireMaskShapeOfParts(const H5File &file, const ElementInfo &info, const ElementInfo &mask);

// Whether RowSparseRowReader reads `element`: row_sparse, or a masked_tensor of row_sparse data
// with a row_sparse mask. False too when the mask cannot be described: the whole read says why.
bool rowSparseReadableByRows(const H5File &file, const ElementInfo &element);

// A csr or csc element's outline, read and checked as a whole read checks it before its
// indices (the parts' ranks and lengths, I1 to I5; the conversion of its values noted): its
// shape and indptr, by which sparsity-mpi divides a csc element's entries among the ranks, a
// range of columns each.
struct CompressedOutline {
    Shape shape;
    CompressedAxis axis = CompressedAxis::Row;
    Buffer<std::int64_t> indptr;
    std::string where, tag; // the element, named as its messages name it; "CSR" or "CSC"
};
CompressedOutline readCompressedOutline(const H5File &file, const std::string &path, ValidationReport *report = nullptr);
// Its indptr's entries [begin, end) alone, unchecked, fewer where indptr is shorter or not 1-d:
// to plan reads of its rows by what they store, before a read of them checks them.
Buffer<std::int64_t> readCompressedIndptr(const H5File &file, const std::string &path, RowRange pointers);
// Its indices [begin, end) alone (csc: the rows of those entries), unchecked.
Buffer<std::int64_t> readCompressedIndices(const H5File &file, const std::string &path, RowRange entries);
// Its major slices [begin, end) (csc: columns) as stored, in the compute type: a compressed
// tensor of those slices alone, indptr from 0, not checked further (the caller checks I6 and I7,
// numbering entries as the whole does: the first slice's entries start at indptr[begin]).
Tensor readCompressedSlices(const H5File &file, const std::string &path, const CompressedOutline &outline, RowRange slices);

// Rows of one row_sparse element, a block at a time: its indices are read and checked once (as
// a whole read checks them), then each block's stored rows are found by binary search and read
// by hyperslab. A block is a row_sparse tensor of the block's rows, numbered from its first. Of
// a masked_tensor of row_sparse data and mask, the mask's indices are checked once against the
// data's (M1, M2, as a whole read checks them), and each block's mask read from the same rows.
class RowSparseRowReader {
public:
    RowSparseRowReader(const H5File &file, const std::string &path, ValidationReport *report = nullptr);
    const Shape &shape() const { return m_shape; }
    // The rows it stores, ascending.
    std::span<const std::int64_t> storedRows() const { return m_rows; }
    Tensor readRows(RowRange rows) const;

private:
    void openStored(const H5File &file, const ElementInfo &info, ValidationReport *report);

    H5Handle m_data;
    Shape m_shape, m_dataShape;
    DType m_dtype = DType::Float32;
    std::optional<DType> m_dataDType;
    Buffer<std::int64_t> m_rows; // the stored rows, sorted
    std::string m_where, m_dataWhere;
    std::shared_ptr<const RowSparseRowReader> m_mask; // a masked_tensor's mask
};

// Rows of one dense dataset read straight into the caller's buffer (no copy when the stored
// type is T; HDF5 converts otherwise): the input of the streaming pipelines. Keeps the dataset
// open between reads.
class DenseRowReader {
public:
    DenseRowReader(const H5File &file, const std::string &path);
    const Shape &shape() const { return m_shape; }
    // Rows [begin, end) into `into`, which holds (end - begin) * numel(shape[1:]) values.
    template <class T>
    void readRows(std::int64_t begin, std::int64_t end, T *into) const;
    // Of a 2-d dataset, the box rows x columns into `into` (row-major, rows.count() rows of
    // columns.count() values): a column panel, read for a csc output.
    template <class T>
    void readBox(RowRange rows, RowRange columns, T *into) const;
    // Whether readRows<T> reads without calling HDF5 (core/io/raw_values.h): with pread, on the
    // OpenMP threads, from any thread (HDF5 may be busy on another).
    template <class T>
    bool readsWithoutHdf5() const
    {
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
            return m_raw && m_raw->dtype == dtypeOf<T>();
        else
            return false;
    }

private:
    H5Handle m_dataset;
    Shape m_shape;
    std::optional<DType> m_dtype;
    std::string m_where;
    std::optional<RawValues> m_raw; // where the values can be read without HDF5
};

// Whether MaskedBoxReader reads `element`: a masked_tensor of 2-d dense data whose mask is a
// dense bool or uint8 dataset of its shape (M1 and M4 hold; what a whole read would refuse is
// not such an element).
bool maskedReadableByBoxes(const H5File &file, const ElementInfo &element);

// Boxes (rows x columns) of such a masked_tensor: its data's and its mask's by hyperslab, one
// read each, without their rows' other columns: a column panel of a csc output. A box is what
// densifying the whole masked element gives there: its values, 0 where unspecified, and its
// specified elements as bits (a uint8 mask's nonzero bytes set, as a whole read sets them).
// Notes (a conversion of the data's type) are a whole read's to tell: read rows first.
class MaskedBoxReader {
public:
    MaskedBoxReader(const H5File &file, const std::string &path);
    // `into` and `specified` hold rows.count() * columns.count() values, row-major.
    template <class T>
    void readBox(RowRange rows, RowRange columns, T *into, std::uint8_t *specified) const;

private:
    DenseRowReader m_data, m_mask;
};

// The notice every read of a non-float dataset gives: "converted int64 to float64" (nothing
// for float32 and float64, or without a report).
void noteConversion(ValidationReport *report, const std::string &where, DType stored);
// Appends `notes` to `report` less their conversion notices: for a step's --mask, whose
// nonzeros are the mask whatever its type. Its other notices (a sparse mask's duplicates
// summed, which can change what is in it) still reach the user.
void appendAllButConversions(ValidationReport &report, const ValidationReport &notes);

// One rank's part of a count shared by `size` ranks: the parts sum to the whole count.
struct CountShare {
    int rank = 0;
    int size = 1;
};

} // namespace sparsity::core
