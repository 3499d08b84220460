#pragma once
// Writes Tensors in our encodings (docs/HDF5_ENCODINGS.md), every element tagged with encoding-type and
// encoding-version; csr/csc exactly as anndata writes them. Datasets are chunked (about 1 MiB
// per chunk along dim 0) with optional shuffle+gzip.
#include "core/io/h5_handle.h"
#include "core/io/row_counts.h"
#include "core/tensor/buffer.h"
#include "core/tensor/by_precision.h"
#include "core/tensor/tensor.h"

#include <span>
#include <string>
#include <vector>

namespace sparsity::core {

enum class IndexWidth { Auto, Int32, Int64 };

struct WriteOptions {
    int gzipLevel = 0;                        // 0: no compression, 1..9: gzip level
    IndexWidth indexWidth = IndexWidth::Auto; // csr/csc index arrays; Auto = int32 when it fits (scipy's choice)
};

// Writes `tensor` at `path`, creating intermediate groups. Throws InputError when an index
// does not fit the requested width (checked before narrowing), IoError when HDF5 fails.
void writeTensor(H5File &file, const std::string &path, const Tensor &tensor, const WriteOptions &options = {});

// Copies the element at `path` of `from` (a dataset, or an encoded group with all it holds and
// its attributes) to the same path of `to`, creating intermediate groups (H5Ocopy). IoError
// naming the element when its stored bytes do not fit the free space of `to`'s file system
// (checked first: H5Ocopy crashes on a full disk), or when HDF5 fails.
void copyElement(const H5File &from, const std::string &path, H5File &to);

// A dense dataset written in row blocks: created with its full shape (tagged `array`), then
// filled by writeRows() in any order. For outputs larger than memory.
class RowStreamWriter {
public:
    // `type` is Float32, Float64, Int64 or Bool (h5py's bool).
    RowStreamWriter(H5File &file, const std::string &path, const Shape &shape, DType type, const WriteOptions &options = {});
    void writeRows(std::int64_t firstRow, std::int64_t rows, const void *values);

private:
    H5File &m_file;
    std::string m_path;
    Shape m_shape;
    DType m_type;
    H5Handle m_dataset;
};

// Rows appended in order to a dataset, written so that the chunks of a compressed dataset go out
// whole, several at once: rows are held until they fill as many chunks as parallel_deflate
// filters at once (about 8 MiB) or the dataset's last row comes. A row is a step along `axis`,
// every other dim whole: dim 0 for most arrays, dim 1 for a coo's indices [rank, nnz], whose
// entries are its columns (held line by line where a chunk is one line high, as h5_writer
// makes them; written as given otherwise). Whole chunks are filtered on every core (core/io/parallel_deflate.h);
// a chunk that a write cuts would go through HDF5's filter on one thread, and a sparse element's
// entries are written a block's at a time, at offsets that do not fall on its chunks, often
// less than a chunk a block. Another dataset, or one of a shared file, is written as given.
class AppendedRows {
public:
    AppendedRows() = default;
    AppendedRows(const H5File &file, std::string path, hid_t dataset, std::size_t axis = 0);
    // Rows [firstRow, firstRow + rows) from `values` (that box of the dataset, row-major), in
    // `memType`; rows come in order.
    void append(hsize_t firstRow, hsize_t rows, hid_t memType, const void *values);

private:
    void write(hsize_t firstRow, hsize_t rows, hid_t memType, const void *values) const;
    // Rows [firstRow, firstRow + rows) of one line (of dim 0, appended along dim 1; the only one
    // when along dim 0) from `values`.
    void writeLine(hsize_t line, hsize_t firstRow, hsize_t rows, hid_t memType, const void *values) const;
    // The held rows [m_heldFrom, m_heldFrom + rows) written, and dropped from what is held.
    void writeHeld(hsize_t rows, hid_t memType);
    hsize_t heldRows() const { return m_held.empty() ? 0 : static_cast<hsize_t>(m_held.front().size()) / m_rowBytes; }

    const H5File *m_file = nullptr;
    std::string m_path;
    hid_t m_dataset = -1;
    std::size_t m_axis = 0;
    bool m_probed = false;
    std::vector<hsize_t> m_dims;
    hsize_t m_chunkRows = 0;                        // 0: written as given
    hsize_t m_batchRows = 0;                        // the rows written at once
    hsize_t m_lines = 1;                            // the dims before the axis, as one: a coo's rank
    hsize_t m_rowBytes = 0;                         // of one line's row: the dims after the axis
    std::vector<std::vector<unsigned char>> m_held; // each line's rows [m_heldFrom, ...), not yet written
    hsize_t m_heldFrom = 0;
};

// What one rank writes of a sparse element streamed by rows, and where: storedPerRow.of(i) is
// the number of nonzeros of row firstRow + i (about a byte and an eighth a row: RowCounts); the
// "before" counts are what the ranks below this one write, the totals the whole element's. In
// a group of one, firstRow and the "before" counts are 0 and storedPerRow covers every row.
struct SparseRowCounts {
    std::int64_t firstRow = 0;
    RowCounts storedPerRow;
    std::int64_t entriesBefore = 0, entriesTotal = 0;       // nonzeros
    std::int64_t storedRowsBefore = 0, storedRowsTotal = 0; // rows with a nonzero (row_sparse)
};
// This rank's counts of rows [firstRow, firstRow + storedPerRow.rows()), finished and completed
// by an exclusive scan and a sum over ranks() (collective).
SparseRowCounts sparseRowCountsAcrossRanks(std::int64_t firstRow, RowCounts storedPerRow);

// A csr, coo or row_sparse element written a block of rows at a time, in row order, holding
// what writeTensor() writes for the same tensor converted with toLayout() (zeros dropped,
// coo with every dim sparse, csr index width chosen by the same rule). The sizes come from a
// counting pass, `counts`, which the writer keeps to check each row against. On a shared file
// each rank writes its own rows, every rank making the same number of writeRows() calls.
class SparseRowStreamWriter {
public:
    // How a coo element indexes its values: each by all its coordinates, or (what a row_sparse
    // element converts into) each stored row whole by its row number, its first dim alone sparse.
    enum class CooIndex { EveryDim, Rows };
    // `type` is Float32, Float64, or Bool (a masked_tensor's mask, beside its data's writer
    // with the same counts; written by writeEntries alone); `layout` Csr (2-d), Coo or
    // RowSparse.
    SparseRowStreamWriter(H5File &file,
                          const std::string &path,
                          Layout layout,
                          const Shape &shape,
                          DType type,
                          SparseRowCounts counts,
                          const WriteOptions &options = {},
                          CooIndex cooIndex = CooIndex::EveryDim);
    const SparseRowCounts &counts() const { return m_counts; }
    // Rows [firstRow, firstRow + rows) of the dense tensor, rows * numel(shape[1:]) values.
    // Throws InternalError, before writing, when a row holds another count of nonzeros than
    // `counts` gave (row_sparse: is stored when not counted, or the other way), or lies past
    // this rank's rows: indptr and the entries' offsets come from the counts, and a shared
    // file's datasets have no fill values, so a miscount would leave a corrupt element.
    template <class T>
    void writeRows(std::int64_t firstRow, std::int64_t rows, const T *block);
    // The same rows given as their stored entries, zeros kept: `positions` in row-major order
    // within the block ([0, rows * numel(shape[1:])), ascending, each once; the writer takes
    // them, to reuse) and their values.
    // A row is stored (row_sparse, coo by rows) when it has an entry, its other values 0. For a sparse
    // element converted a block of rows at a time: what a toLayout() of the block holds.
    template <class T>
    void writeEntries(std::int64_t firstRow, std::int64_t rows, Buffer<std::int64_t> positions, std::span<const T> values);

private:
    // Into `dataset`, a csr's indptr: this rank's part of it, from the counts.
    void writeIndptr(hid_t dataset);
    void takeRows(std::int64_t firstRow, std::int64_t rows);
    // m_positions hold the rows' counts of entries, in order.
    void requireCounted(std::int64_t firstRow, std::int64_t rows) const;
    template <class T>
    void writeStoredRows(); // whole rows: m_positions (rows) and the scratch values (their data)
    template <class T>
    void writeEntriesGathered(std::int64_t firstRow, const T *values); // csr, coo: m_positions and `values`
    [[noreturn]] void miscounted(std::int64_t row, std::int64_t found) const;
    std::int64_t counted(std::int64_t row) const { return m_counts.storedPerRow.of(row - m_counts.firstRow); }

    H5File &m_file;
    std::string m_path;
    Layout m_layout;
    bool m_wholeRows = false; // row_sparse, or coo by rows: each stored row written whole
    Shape m_shape;
    std::int64_t m_width = 0;
    bool m_wideIndices = true; // csr indices as int64 (else int32)
    std::int64_t m_nextEntry = 0, m_nextRow = 0, m_nextStoredRow = 0;
    SparseRowCounts m_counts;
    std::int64_t m_endRow = 0; // past this rank's rows
    H5Handle m_values, m_indices;
    // Their rows (entries, stored rows) as written, but a coo's indices [rank, nnz]
    AppendedRows m_valueRows, m_indexRows;
    // writeRows()'s and writeEntries()'s gathered entries, kept between calls: a fresh buffer of a few MiB per block
    // was faulted in and zeroed again each time (9% of a streamed convert to coo).
    Buffer<std::int64_t> m_positions, m_coordinates, m_rowsOf;
    ByPrecision<Buffer> m_scratchValues;
    Buffer<std::uint8_t> m_scratchBools; // a mask's
    template <class T>
    Buffer<T> &scratch()
    {
        if constexpr (std::is_same_v<T, std::uint8_t>)
            return m_scratchBools;
        else
            return m_scratchValues.of<T>();
    }
};

// A csc element (2-d) written a run of entries at a time: what writeTensor() writes for the
// same tensor converted with toLayout(Csc) (zeros dropped, rows ascending within a column, the
// same index width). Its sizes, and so indptr, come from a counting pass (`storedPerColumn`,
// the whole element's, on every rank); entries may be written in any order of runs. On a
// shared file every rank makes each writeEntries() call, with its own run or an empty one.
class CscStreamWriter {
public:
    // `type` is Float32, Float64, or Bool (a masked_tensor's mask, beside its data's writer with
    // the same counts).
    CscStreamWriter(H5File &file,
                    const std::string &path,
                    const Shape &shape,
                    DType type,
                    const std::vector<std::int64_t> &storedPerColumn,
                    const WriteOptions &options = {});
    // Where column `column`'s entries start (indptr[column]); columnStart(columns) is nnz.
    std::int64_t columnStart(std::int64_t column) const { return m_indptr[static_cast<std::size_t>(column)]; }
    // Every column's start, and nnz last (its indptr).
    std::span<const std::int64_t> columnStarts() const { return {m_indptr.data(), m_indptr.size()}; }
    // Entries [offset, offset + count): their values and row indices.
    template <class T>
    void writeEntries(std::int64_t offset, std::int64_t count, const T *values, const std::int64_t *rows);

private:
    H5File &m_file;
    std::string m_path;
    bool m_wideIndices = true;
    Buffer<std::int64_t> m_indptr;
    H5Handle m_values, m_indices;
};

// A coo element written a run of entries at a time, as writeTensor() writes the same coo
// tensor: `indices` int64 [sparseDims, nnz], `values` [nnz, shape[sparseDims:]...], the entries
// in the order given (a copy of a coo, hybrid or not, coalesced or not). On a shared file every
// rank makes each writeEntries() call, with its own run or an empty one.
class CooEntryStreamWriter {
public:
    // `type` is Float32 or Float64.
    CooEntryStreamWriter(H5File &file,
                         const std::string &path,
                         const Shape &shape,
                         int sparseDims,
                         std::int64_t entries,
                         DType type,
                         const WriteOptions &options = {});
    // Entries [offset, offset + count): their indices dim-major (sparseDims rows of `count`),
    // and their values (count * numel(shape[sparseDims:])).
    template <class T>
    void writeEntries(std::int64_t offset, std::int64_t count, const std::int64_t *indices, const T *values);

private:
    H5File &m_file;
    std::string m_path;
    Shape m_shape;
    int m_sparseDims = 0;
    std::int64_t m_entries = 0;
    H5Handle m_values, m_indices;
};

// Creates a group tagged with `encoding` (e.g. masked_tensor) for streamed children.
void createEncodedGroup(H5File &file, const std::string &path, const std::string &encoding);

// An int64 dataset (`array` encoding) of `shape`, e.g. step counts and per-row step numbers.
void writeInt64Array(H5File &file, const std::string &path, const Shape &shape, const std::int64_t *values);

} // namespace sparsity::core
