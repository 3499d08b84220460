#include "core/io/h5_writer.h"

#include "core/io/h5_attributes.h"
#include "core/io/h5_types.h"
#include "core/io/parallel_deflate.h"
#include "core/parallel/rank_group.h"
#include "core/parallel/rank_session.h"
#include "core/tensor/storage_rebind.h"
#include "core/util/errors.h"
#include "core/util/memory_bound.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <span>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// csr/csc index arrays (indices, indptr) are int32 when every value fits, as anndata and scipy
// write them, int64 otherwise or when asked; int32 asked for and not fitting is an error.
// `bound` is the largest value any of the element's index arrays can hold.
bool wideIndices(IndexWidth asked, std::int64_t bound, const std::string &where)
{
    const bool fits32 = bound <= std::numeric_limits<std::int32_t>::max();
    if (asked == IndexWidth::Int32 && !fits32)
        throw errors::mustBe(where, "fit int32 indices (max 2147483647)", "an index bound of " + std::to_string(bound));
    return asked == IndexWidth::Int64 || !fits32;
}

// Index values wideIndices() found to fit int32, narrowed for writing.
Buffer<std::int32_t> narrowed(std::span<const std::int64_t> values)
{
    Buffer<std::int32_t> narrow(values.size());
    std::transform(values.begin(), values.end(), narrow.begin(), [](std::int64_t v) { return static_cast<std::int32_t>(v); });
    return narrow;
}

// The HDF5 file and memory type for a value type; masks (uint8) are h5py bools.
struct ValueType {
    H5Handle owned;
    hid_t file = H5I_INVALID_HID;
    hid_t memory = H5I_INVALID_HID;
};

template <class T>
ValueType valueType()
{
    ValueType type;
    if constexpr (std::is_same_v<T, float>) {
        type.file = H5T_IEEE_F32LE;
        type.memory = H5T_NATIVE_FLOAT;
    } else if constexpr (std::is_same_v<T, double>) {
        type.file = H5T_IEEE_F64LE;
        type.memory = H5T_NATIVE_DOUBLE;
    } else if constexpr (std::is_same_v<T, std::int64_t>) {
        type.file = H5T_STD_I64LE;
        type.memory = H5T_NATIVE_INT64;
    } else if constexpr (std::is_same_v<T, std::int32_t>) {
        type.file = H5T_STD_I32LE;
        type.memory = H5T_NATIVE_INT32;
    } else {
        static_assert(std::is_same_v<T, std::uint8_t>);
        type.owned = makeBoolType();
        type.file = type.owned.id();
        type.memory = type.owned.id();
    }
    return type;
}

// Writes `values` into the box [start, start + count) of `dataset` (rank 0: the whole scalar).
// On a shared file every rank makes the call (collective), an empty box selecting nothing.
void writeBox(const H5File &file,
              const std::string &path,
              hid_t dataset,
              hid_t memType,
              const std::vector<hsize_t> &start,
              const std::vector<hsize_t> &count,
              const void *values,
              const char *what = "values")
{
    const bool empty = std::any_of(count.begin(), count.end(), [](hsize_t c) { return c == 0; });
    if (empty && !file.isShared())
        return;
    silenceHdf5Errors(); // it may run on a pipeline's I/O thread
    // A compressed dataset's whole chunks in the box are filtered on every core
    // (core/io/parallel_deflate.h); the rows of chunks it cuts, before and after them, go
    // through H5Dwrite. One process: a shared file's ranks write collectively.
    if (!empty && !count.empty() && !file.isShared())
        if (const auto layout = deflatedChunksOf(dataset, memType)) {
            if (const DatasetBox box{start, count}; holdsWholeChunks(*layout, box)) { // in any dim
                writeDeflatedBox(dataset, *layout, box, values, file.where(path), what);
                return;
            }
            const bool wholeRows = std::equal(count.begin() + 1, count.end(), layout->dims.begin() + 1)
                                   && std::all_of(start.begin() + 1, start.end(), [](hsize_t s) { return s == 0; });
            const auto whole = wholeRows ? wholeChunkRows(*layout, start[0], count[0]) : ChunkRowSpan{};
            if (whole.end > whole.begin) {
                const hsize_t rowBytes =
                    std::accumulate(count.begin() + 1, count.end(), hsize_t{layout->elementSize}, std::multiplies<>());
                const auto rowsFrom = [&](hsize_t row) {
                    return static_cast<const char *>(values) + (row - start[0]) * rowBytes;
                };
                const auto plainRows = [&](hsize_t first, hsize_t last) {
                    auto from = start, rows = count;
                    from[0] = first;
                    rows[0] = last - first;
                    writeBox(file, path, dataset, memType, from, rows, rowsFrom(first), what);
                };
                plainRows(start[0], whole.begin);
                plainRows(whole.begin, whole.end); // whole chunks: writeDeflatedBox, above
                plainRows(whole.end, start[0] + count[0]);
                return;
            }
        }
    H5Handle fileSpace = datasetSpace(dataset);
    // A dataset of no elements (4 x 0) has nothing to write, on any rank (all see its extent, so
    // all skip the collective write together): across ranks its write failed ("disk full?").
    if (H5Sget_simple_extent_npoints(fileSpace.id()) == 0)
        return;
    H5Handle memSpace;
    if (empty) {
        const hsize_t one = 1;
        memSpace = H5Handle(H5Screate_simple(1, &one, nullptr), H5Sclose);
        H5Sselect_none(memSpace.id());
        H5Sselect_none(fileSpace.id());
    } else if (count.empty()) {
        memSpace = H5Handle(H5Screate(H5S_SCALAR), H5Sclose);
    } else {
        H5Sselect_hyperslab(fileSpace.id(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
        memSpace = H5Handle(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose);
    }
    if (H5Dwrite(dataset, memType, memSpace.id(), fileSpace.id(), file.transferList(), values) < 0) {
        const IoError error(file.where(path) + ": cannot write " + what + " (disk full?)");
        // Failing partway through a collective write, this rank has left the others in it.
        if (file.isShared())
            endJob(error.exitCode(), error.what());
        throw error;
    }
}

// A whole dataset of `shape`: on a shared file the root writes it, the other ranks select nothing.
void writeWhole(const H5File &file, const std::string &path, hid_t dataset, hid_t memType, const Shape &shape, const void *values)
{
    std::vector<hsize_t> start(shape.size(), 0), count(shape.begin(), shape.end());
    if (file.isShared() && !ranks().isRoot())
        count.assign(std::max<std::size_t>(1, shape.size()), 0);
    writeBox(file, path, dataset, memType, start, count, values);
}

class Writer {
public:
    Writer(H5File &file, const WriteOptions &options) : m_file(file), m_options(options)
    {
        m_lcpl = H5Handle(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
        H5Pset_create_intermediate_group(m_lcpl.id(), 1);
    }

    H5Handle createGroup(const std::string &path, const std::string &encoding)
    {
        H5Handle gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
        H5Pset_link_creation_order(gcpl.id(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
        H5Handle group(H5Gcreate2(m_file.id(), path.c_str(), m_lcpl.id(), gcpl.id(), H5P_DEFAULT), H5Gclose);
        if (!group.isValid())
            throw IoError(m_file.where(path) + ": cannot create group (exists already?)");
        writeEncoding(group.id(), encoding, encoding == "array" ? "0.2.0" : "0.1.0");
        return group;
    }

    template <class T>
    H5Handle writeArray(const std::string &path, const Shape &shape, const T *data)
    {
        H5Handle dataset = createArray<T>(path, shape);
        if (numel(shape) > 0)
            writeWhole(m_file, path, dataset.id(), valueType<T>().memory, shape, data);
        return dataset;
    }

    template <class T>
    H5Handle createArray(const std::string &path, const Shape &shape)
    {
        const auto type = valueType<T>();
        std::vector<hsize_t> dims(shape.begin(), shape.end());
        H5Handle space(shape.empty() ? H5Screate(H5S_SCALAR)
                                     : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                       H5Sclose);
        H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        const auto count = numel(shape);
        if (m_file.isShared() && m_options.gzipLevel == 0) // compressed, its size is not known
            requireFreeSpace(m_file.path(), bytesFor(count, sizeof(T)), m_file.where(path), "writing it needs");
        // Parallel HDF5 allocates a shared file's chunks when the dataset is created and, by default,
        // writes fill values into all of them first: a second write of every byte (HDF5 still fills
        // compressed chunks). The ranks write every element (a failed write discards the file), so
        // no fill value is ever read.
        if (m_file.isShared())
            H5Pset_fill_time(dcpl.id(), H5D_FILL_TIME_NEVER);
        // Compressed datasets are chunked (HDF5 filters chunks). Uncompressed ones are contiguous,
        // h5py's default: a block of rows is then one write of its bytes, where 1 MiB chunks took
        // 80 % longer to write (256 MiB in blocks of 8 MiB: 0.063 s chunked, 0.035 s contiguous;
        // PERFORMANCE.md, stop 56).
        if (!shape.empty() && count > 0 && m_options.gzipLevel > 0) {
            // Chunks of about 1 MiB: whole trailing slices when they are smaller, so row ranges read
            // few chunks; else pieces of one (a coo `indices` of shape (2, nnz), a very long row).
            // HDF5 holds a whole chunk in memory to write part of it, so a chunk is never larger.
            std::vector<hsize_t> chunk = dims;
            const auto target = std::max<std::int64_t>(1, (std::int64_t{1} << 20) / std::int64_t(sizeof(T)));
            chunk[0] = static_cast<hsize_t>(
                std::clamp<std::int64_t>(target / std::max<std::int64_t>(1, numel(shape, 1, shape.size())), 1, shape[0]));
            auto room = std::max<std::int64_t>(1, target / static_cast<std::int64_t>(chunk[0])); // elements left in a chunk
            for (std::size_t d = 1; d < chunk.size(); ++d) {
                chunk[d] = static_cast<hsize_t>(std::clamp<std::int64_t>(room, 1, std::max<std::int64_t>(1, shape[d])));
                room = std::max<std::int64_t>(1, room / static_cast<std::int64_t>(chunk[d]));
            }
            H5Pset_chunk(dcpl.id(), static_cast<int>(chunk.size()), chunk.data());
            H5Pset_shuffle(dcpl.id());
            H5Pset_deflate(dcpl.id(), static_cast<unsigned>(m_options.gzipLevel));
        }
        // Streamed writes fill a chunk in several pieces (a block boundary inside it; both rows of
        // a coo `indices`). A cache of a few chunks keeps them until they are whole, so each is
        // filtered and written once; HDF5's 1 MiB default holds at most one, and a compressed
        // chunk written in pieces was read back, inflated and deflated again for every piece.
        H5Handle dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
        H5Pset_chunk_cache(dapl.id(), 521, std::size_t{4} << 20, 1.0);
        H5Handle dataset(H5Dcreate2(m_file.id(), path.c_str(), type.file, space.id(), m_lcpl.id(), dcpl.id(), dapl.id()),
                         closeWrittenDataset);
        if (!dataset.isValid())
            throw IoError(m_file.where(path) + ": cannot create dataset ("
                          + (linkExists(m_file.id(), path) ? "it exists already" : "disk full?") + ")");
        return dataset;
    }

    // An index array of csr/csc, in the width wideIndices() chooses.
    void writeIndexArray(const std::string &path, const Buffer<std::int64_t> &values, std::int64_t bound)
    {
        const Shape shape{static_cast<std::int64_t>(values.size())};
        if (wideIndices(m_options.indexWidth, bound, m_file.where(path)))
            writeArray<std::int64_t>(path, shape, values.data());
        else
            writeArray<std::int32_t>(path, shape, narrowed(values).data());
    }

    template <class T>
    void write(const std::string &path, const DenseTensor<T> &t)
    {
        H5Handle dataset = writeArray<T>(path, t.shape, t.values.data());
        writeEncoding(dataset.id(), "array", "0.2.0");
    }

    template <class T>
    void write(const std::string &path, const CompressedTensor<T> &t)
    {
        H5Handle group = createGroup(path, t.axis == CompressedAxis::Row ? "csr_matrix" : "csc_matrix");
        writeIntArrayAttribute(group.id(), "shape", {t.shape.begin(), t.shape.end()});
        writeArray<T>(path + "/data", {t.nnz()}, t.values.data());
        const auto bound = std::max({t.nnz(), t.shape[0], t.shape[1]});
        writeIndexArray(path + "/indices", t.indices, bound);
        writeIndexArray(path + "/indptr", t.indptr, bound);
    }

    template <class T>
    void write(const std::string &path, const CooTensor<T> &t)
    {
        H5Handle group = createGroup(path, "coo_tensor");
        writeIntArrayAttribute(group.id(), "shape", {t.shape.begin(), t.shape.end()});
        writeArray<std::int64_t>(path + "/indices", {t.sparseDims, t.nnz}, t.indices.data());
        Shape valuesShape{t.nnz};
        valuesShape.insert(valuesShape.end(), t.shape.begin() + t.sparseDims, t.shape.end());
        writeArray<T>(path + "/values", valuesShape, t.values.data());
    }

    template <class T>
    void write(const std::string &path, const RowSparseTensor<T> &t)
    {
        H5Handle group = createGroup(path, "row_sparse");
        writeIntArrayAttribute(group.id(), "shape", {t.shape.begin(), t.shape.end()});
        writeArray<std::int64_t>(path + "/indices", {t.storedRows()}, t.rows.data());
        Shape dataShape = t.shape;
        dataShape[0] = t.storedRows();
        writeArray<T>(path + "/data", dataShape, t.values.data());
    }

private:
    H5File &m_file;
    WriteOptions m_options;
    H5Handle m_lcpl;
};

std::string normalise(const std::string &path) { return path.empty() || path[0] != '/' ? "/" + path : path; }

// The bytes the object `name` (relative to `location`) stores when it is a dataset; 0 for a
// group, or when it cannot be read.
std::int64_t datasetBytes(hid_t location, const char *name)
{
    H5O_info_t info{};
    if (H5Oget_info_by_name2(location, name, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0 || info.type != H5O_TYPE_DATASET)
        return 0;
    const H5Handle dataset(H5Dopen2(location, name, H5P_DEFAULT), H5Dclose);
    return dataset.isValid() ? static_cast<std::int64_t>(H5Dget_storage_size(dataset.id())) : 0;
}

// The bytes the datasets of the object at `path` (a dataset, or a group and all it holds)
// take in `file`: what copying it writes.
std::int64_t storedBytesAt(const H5File &file, const std::string &path)
{
    H5O_info_t info{};
    if (H5Oget_info_by_name2(file.id(), path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        return 0;
    if (info.type != H5O_TYPE_GROUP)
        return datasetBytes(file.id(), path.c_str());
    // A group: every dataset below it (names relative to it).
    std::int64_t bytes = 0;
    H5Lvisit_by_name(
        file.id(), path.c_str(), H5_INDEX_NAME, H5_ITER_INC,
        [](hid_t group, const char *name, const H5L_info_t *, void *total) -> herr_t {
            *static_cast<std::int64_t *>(total) += datasetBytes(group, name);
            return 0;
        },
        &bytes, H5P_DEFAULT);
    return bytes;
}

} // namespace

void copyElement(const H5File &from, const std::string &path, H5File &to)
{
    // Refused first when it cannot fit: HDF5 1.10's H5Ocopy crashes (SIGSEGV in H5T_close_real)
    // when a write of the copy fails for lack of space, and on a shared file a full disk fails
    // inside MPI-IO's collective writes, where ranks can wait for each other for ever.
    requireFreeSpace(to.path(), storedBytesAt(from, path), to.where(path), "copying it needs");
    const H5Handle links(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(links.id(), 1);
    if (H5Ocopy(from.id(), path.c_str(), to.id(), path.c_str(), H5P_DEFAULT, links.id()) < 0)
        throw IoError(to.where(path) + ": cannot copy it from " + from.where(path) + " (disk full?)");
}

RowStreamWriter::RowStreamWriter(
    H5File &file, const std::string &path, const Shape &shape, DType type, const WriteOptions &options)
    : m_file(file), m_path(normalise(path)), m_shape(shape), m_type(type)
{
    if (shape.empty())
        throw InternalError("RowStreamWriter needs rank >= 1");
    Writer writer(file, options);
    switch (type) {
    case DType::Float32:
        m_dataset = writer.createArray<float>(m_path, shape);
        break;
    case DType::Float64:
        m_dataset = writer.createArray<double>(m_path, shape);
        break;
    case DType::Bool:
        m_dataset = writer.createArray<std::uint8_t>(m_path, shape);
        break;
    case DType::Int64:
        m_dataset = writer.createArray<std::int64_t>(m_path, shape);
        break;
    default:
        throw InternalError("RowStreamWriter: unsupported dtype");
    }
    writeEncoding(m_dataset.id(), "array", "0.2.0");
}

void RowStreamWriter::writeRows(std::int64_t firstRow, std::int64_t rows, const void *values)
{
    std::vector<hsize_t> start(m_shape.size(), 0), count(m_shape.begin(), m_shape.end());
    start[0] = static_cast<hsize_t>(firstRow);
    count[0] = static_cast<hsize_t>(std::max<std::int64_t>(rows, 0));
    H5Handle boolType;
    hid_t memType = H5T_NATIVE_FLOAT;
    if (m_type == DType::Float64)
        memType = H5T_NATIVE_DOUBLE;
    if (m_type == DType::Int64)
        memType = H5T_NATIVE_INT64;
    if (m_type == DType::Bool) {
        boolType = makeBoolType();
        memType = boolType.id();
    }
    writeBox(m_file, m_path, m_dataset.id(), memType, start, count, values, "rows");
}

AppendedRows::AppendedRows(const H5File &file, std::string path, hid_t dataset, std::size_t axis)
    : m_file(&file), m_path(std::move(path)), m_dataset(dataset), m_axis(axis)
{
}

void AppendedRows::write(hsize_t firstRow, hsize_t rows, hid_t memType, const void *values) const
{
    std::vector<hsize_t> start(m_dims.size(), 0), count = m_dims;
    start[m_axis] = firstRow;
    count[m_axis] = rows;
    writeBox(*m_file, m_path, m_dataset, memType, start, count, values);
}

void AppendedRows::writeLine(hsize_t line, hsize_t firstRow, hsize_t rows, hid_t memType, const void *values) const
{
    if (m_lines == 1) {
        write(firstRow, rows, memType, values);
        return;
    }
    std::vector<hsize_t> start(m_dims.size(), 0), count = m_dims;
    start[0] = line; // axis 1: a line is a row of dim 0
    count[0] = 1;
    start[1] = firstRow;
    count[1] = rows;
    writeBox(*m_file, m_path, m_dataset, memType, start, count, values);
}

void AppendedRows::writeHeld(hsize_t rows, hid_t memType)
{
    // Line after line: with a chunk a line high, the chunks go out in the order one write of the
    // box would write them, and no copy of the box is made.
    const auto bytes = static_cast<std::ptrdiff_t>(rows * m_rowBytes);
    for (hsize_t line = 0; line < m_lines; ++line) {
        writeLine(line, m_heldFrom, rows, memType, m_held[line].data());
        m_held[line].erase(m_held[line].begin(), m_held[line].begin() + bytes);
    }
    m_heldFrom += rows;
}

void AppendedRows::append(hsize_t firstRow, hsize_t rows, hid_t memType, const void *values)
{
    if (!m_probed) {
        m_probed = true;
        const H5Handle space = datasetSpace(m_dataset);
        const int rank = H5Sget_simple_extent_ndims(space.id());
        m_dims.resize(static_cast<std::size_t>(std::max(rank, 0)));
        H5Sget_simple_extent_dims(space.id(), m_dims.data(), nullptr);
        if (m_axis >= m_dims.size() || m_axis > 1)
            throw InternalError(m_file->where(m_path) + ": rows appended along dim 0 or 1 of the dataset expected");
        const auto layout = m_file->isShared() ? std::nullopt : deflatedChunksOf(m_dataset, memType);
        // Along dim 1, held line by line where a chunk is one line high (a coo's indices).
        if (layout && (m_axis == 0 || layout->chunk[0] == 1)) {
            m_chunkRows = layout->chunk[m_axis];
            m_lines = std::accumulate(m_dims.begin(), m_dims.begin() + static_cast<std::ptrdiff_t>(m_axis), hsize_t{1},
                                      std::multiplies<>());
            m_rowBytes = std::accumulate(m_dims.begin() + static_cast<std::ptrdiff_t>(m_axis) + 1, m_dims.end(),
                                         hsize_t{layout->elementSize}, std::multiplies<>());
            // The chunks across the other dims that each step of chunks along the axis holds.
            hsize_t across = 1;
            for (std::size_t d = 0; d < m_dims.size(); ++d)
                if (d != m_axis)
                    across *= (m_dims[d] + layout->chunk[d] - 1) / layout->chunk[d];
            m_batchRows = m_chunkRows * std::max<hsize_t>(1, chunksAtOnce(*layout) / across);
            m_held.resize(m_lines);
        }
    }
    if (m_chunkRows == 0 || rows == 0) {
        write(firstRow, rows, memType, values);
        return;
    }
    const auto rowsTo = m_dims[m_axis];
    // The whole chunks of rows [first, first + count), the last rows of the dataset counting as one.
    const auto wholeOf = [&](hsize_t first, hsize_t count) {
        return first + count == rowsTo ? count : count / m_chunkRows * m_chunkRows;
    };
    if (heldRows() != 0 && firstRow != m_heldFrom + heldRows()) // out of order: the held rows as they are
        writeHeld(heldRows(), memType);
    const auto *from = static_cast<const unsigned char *>(values);
    const auto lineBytes = rows * m_rowBytes; // of `values`' lines
    if (heldRows() == 0) {
        if (firstRow % m_chunkRows != 0) { // not where a chunk begins: as given
            write(firstRow, rows, memType, from);
            return;
        }
        m_heldFrom = firstRow;
        if (rows >= m_batchRows) { // enough whole chunks to keep every core busy, as they come
            const auto whole = wholeOf(firstRow, rows);
            for (hsize_t line = 0; line < m_lines; ++line)
                writeLine(line, firstRow, whole, memType, from + line * lineBytes);
            from += whole * m_rowBytes;
            m_heldFrom += whole;
            rows -= whole;
        }
    }
    for (hsize_t line = 0; line < m_lines; ++line) {
        const auto *part = from + line * lineBytes;
        m_held[line].insert(m_held[line].end(), part, part + rows * m_rowBytes);
    }
    if (heldRows() >= m_batchRows || m_heldFrom + heldRows() == rowsTo)
        writeHeld(wholeOf(m_heldFrom, heldRows()), memType);
}

SparseRowCounts sparseRowCountsAcrossRanks(std::int64_t firstRow, RowCounts storedPerRow)
{
    SparseRowCounts counts;
    counts.firstRow = firstRow;
    storedPerRow.finish();
    const auto entries = storedPerRow.total();
    const auto storedRows = storedPerRow.nonEmptyRows();
    counts.storedPerRow = std::move(storedPerRow);
    const auto &group = ranks();
    counts.entriesBefore = group.exclusiveScan(entries);
    counts.storedRowsBefore = group.exclusiveScan(storedRows);
    std::int64_t totals[] = {entries, storedRows};
    group.sum(totals);
    counts.entriesTotal = totals[0];
    counts.storedRowsTotal = totals[1];
    return counts;
}

SparseRowStreamWriter::SparseRowStreamWriter(H5File &file,
                                             const std::string &path,
                                             Layout layout,
                                             const Shape &shape,
                                             DType type,
                                             SparseRowCounts counted,
                                             const WriteOptions &options,
                                             CooIndex cooIndex)
    : m_file(file), m_path(normalise(path)), m_layout(layout),
      m_wholeRows(layout == Layout::RowSparse || (layout == Layout::Coo && cooIndex == CooIndex::Rows)), m_shape(shape),
      m_width(numel(shape, 1, shape.size())), m_nextEntry(counted.entriesBefore), m_nextRow(counted.firstRow),
      m_nextStoredRow(counted.storedRowsBefore), m_counts(std::move(counted)),
      m_endRow(m_counts.firstRow + m_counts.storedPerRow.rows())
{
    const auto &counts = m_counts;
    const auto localRows = counts.storedPerRow.rows();
    if (shape.empty() || (type != DType::Float32 && type != DType::Float64 && type != DType::Bool)
        || (layout != Layout::Csr && layout != Layout::Coo && layout != Layout::RowSparse)
        || (layout == Layout::Csr && shape.size() != 2) || counts.firstRow < 0 || counts.firstRow + localRows > shape[0])
        throw InternalError("SparseRowStreamWriter: unsupported element");
    Writer writer(file, options);
    const auto nnz = counts.entriesTotal;
    auto createArray = [&](const std::string &name, const Shape &valueShape) {
        const auto at = m_path + "/" + name;
        return type == DType::Float32   ? writer.createArray<float>(at, valueShape)
               : type == DType::Float64 ? writer.createArray<double>(at, valueShape)
                                        : writer.createArray<std::uint8_t>(at, valueShape);
    };
    auto createValues = [&](const Shape &valueShape) {
        return createArray(layout == Layout::RowSparse ? "data" : "values", valueShape);
    };
    switch (layout) {
    case Layout::Csr: {
        H5Handle group = writer.createGroup(m_path, "csr_matrix");
        writeIntArrayAttribute(group.id(), "shape", {shape.begin(), shape.end()});
        m_values = createArray("data", {nnz});
        m_wideIndices = wideIndices(options.indexWidth, std::max({nnz, shape[0], shape[1]}), file.where(m_path + "/indices"));
        m_indices = m_wideIndices ? writer.createArray<std::int64_t>(m_path + "/indices", {nnz})
                                  : writer.createArray<std::int32_t>(m_path + "/indices", {nnz});
        const Shape indptrShape{shape[0] + 1};
        const H5Handle indptr = m_wideIndices ? writer.createArray<std::int64_t>(m_path + "/indptr", indptrShape)
                                              : writer.createArray<std::int32_t>(m_path + "/indptr", indptrShape);
        writeIndptr(indptr.id());
        break;
    }
    case Layout::Coo: {
        H5Handle group = writer.createGroup(m_path, "coo_tensor");
        writeIntArrayAttribute(group.id(), "shape", {shape.begin(), shape.end()});
        if (m_wholeRows) { // indices [1, rows], values [rows, shape[1:]...]
            m_indices = writer.createArray<std::int64_t>(m_path + "/indices", {1, counts.storedRowsTotal});
            Shape valuesShape = shape;
            valuesShape[0] = counts.storedRowsTotal;
            m_values = createValues(valuesShape);
            break;
        }
        m_indices = writer.createArray<std::int64_t>(m_path + "/indices", {static_cast<std::int64_t>(shape.size()), nnz});
        m_values = createValues({nnz});
        break;
    }
    default: { // RowSparse
        H5Handle group = writer.createGroup(m_path, "row_sparse");
        writeIntArrayAttribute(group.id(), "shape", {shape.begin(), shape.end()});
        m_indices = writer.createArray<std::int64_t>(m_path + "/indices", {counts.storedRowsTotal});
        Shape dataShape = shape;
        dataShape[0] = counts.storedRowsTotal;
        m_values = createValues(dataShape);
        break;
    }
    }
    m_valueRows = AppendedRows(file, m_path + (layout == Layout::Coo ? "/values" : "/data"), m_values.id());
    // A coo's indices [rank, n]: its entries are the columns.
    m_indexRows = AppendedRows(file, m_path + "/indices", m_indices.id(), layout == Layout::Coo ? 1 : 0);
}

void SparseRowStreamWriter::writeIndptr(hid_t dataset)
{
    // indptr[r + 1] for this rank's rows, and indptr[0] = 0 from the root, from the counts a
    // piece at a time: whole, it took 8 bytes a row (12 as int32) beside them. Every rank makes
    // as many writes as the rank with the most pieces (a shared file's writes are collective).
    constexpr std::int64_t kPieceRows = std::int64_t{1} << 17;
    const auto &counts = m_counts;
    const bool withZero = counts.firstRow == 0 && ranks().isRoot();
    const auto values = counts.storedPerRow.rows() + (withZero ? 1 : 0);
    const auto first = counts.firstRow + (withZero ? 0 : 1);
    double pieces[] = {static_cast<double>((values + kPieceRows - 1) / kPieceRows)};
    ranks().max(pieces);
    const auto path = m_path + "/indptr";
    Buffer<std::int64_t> piece;
    auto running = counts.entriesBefore;
    std::int64_t row = 0, written = 0;
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(pieces[0]); ++k) {
        piece.clear();
        for (const auto end = std::min(values, written + kPieceRows); written + std::ssize(piece) < end;)
            piece.push_back(withZero && written + std::ssize(piece) == 0 ? 0 : (running += counts.storedPerRow.of(row++)));
        const std::vector<hsize_t> start{static_cast<hsize_t>(first + written)}, count{static_cast<hsize_t>(piece.size())};
        if (m_wideIndices)
            writeBox(m_file, path, dataset, H5T_NATIVE_INT64, start, count, piece.data());
        else
            writeBox(m_file, path, dataset, H5T_NATIVE_INT32, start, count, narrowed(piece).data());
        written += std::ssize(piece);
    }
}

void SparseRowStreamWriter::miscounted(std::int64_t row, std::int64_t found) const
{
    const bool mine = row >= m_counts.firstRow && row < m_endRow;
    throw InternalError(
        "SparseRowStreamWriter: " + m_file.where(m_path) + ": row " + std::to_string(row)
        + (mine ? " holds " + std::to_string(found) + " nonzeros, but " + std::to_string(counted(row)) + " were counted"
                : " is not among the rows counted, [" + std::to_string(m_counts.firstRow) + ", " + std::to_string(m_endRow)
                      + ")"));
}

template <class T>
void SparseRowStreamWriter::writeRows(std::int64_t firstRow, std::int64_t rows, const T *block)
{
    takeRows(firstRow, rows);
    const auto count = rows * m_width;
    if (m_wholeRows) {
        // Each row with a nonzero, whole, as it is (a -0 in it stays -0).
        auto &stored = m_positions;
        auto &data = scratch<T>();
        stored.clear();
        data.clear();
        for (std::int64_t r = 0; r < rows; ++r) {
            const T *row = block + r * m_width;
            const bool nonzero = std::any_of(row, row + m_width, [](T x) { return x != T{}; });
            if (nonzero != (counted(firstRow + r) > 0))
                miscounted(firstRow + r, std::count_if(row, row + m_width, [](T x) { return x != T{}; }));
            if (nonzero) {
                stored.push_back(firstRow + r);
                data.insert(data.end(), row, row + m_width);
            }
        }
        writeStoredRows<T>();
        return;
    }
    // Nonzeros in row-major order: csr's (row, column) order and coo's coalesced order alike.
    // Sized exactly (a vector grown by doubling would hold up to twice the block's nonzeros).
    const auto nonzeros = static_cast<std::size_t>(std::count_if(block, block + count, [](T x) { return x != T{}; }));
    auto &positions = m_positions;
    auto &kept = scratch<T>();
    positions.clear();
    kept.clear();
    positions.reserve(nonzeros);
    kept.reserve(nonzeros);
    for (std::int64_t i = 0; i < count; ++i)
        if (block[i] != T{}) {
            positions.push_back(i);
            kept.push_back(block[i]);
        }
    requireCounted(firstRow, rows);
    writeEntriesGathered<T>(firstRow, kept.data());
}

template <class T>
void SparseRowStreamWriter::writeEntries(std::int64_t firstRow,
                                         std::int64_t rows,
                                         Buffer<std::int64_t> positions,
                                         std::span<const T> values)
{
    takeRows(firstRow, rows);
    if (positions.size() != values.size())
        throw InternalError("SparseRowStreamWriter::writeEntries: a value for each position");
    std::swap(m_positions, positions);
    requireCounted(firstRow, rows);
    if (!m_wholeRows) {
        writeEntriesGathered<T>(firstRow, values.data());
        return;
    }
    const auto &given = m_positions;
    // Each row with an entry, whole: its entries in place, zeros around them.
    auto &stored = m_coordinates;
    stored.clear();
    for (std::int64_t r = 0; r < rows; ++r)
        if (counted(firstRow + r) > 0)
            stored.push_back(firstRow + r);
    auto &data = scratch<T>();
    data.assign(stored.size() * static_cast<std::size_t>(m_width), T{});
    for (std::size_t s = 0, k = 0; s < stored.size(); ++s) {
        const auto begin = (stored[s] - firstRow) * m_width;
        for (; k < given.size() && given[k] < begin + m_width; ++k)
            data[s * static_cast<std::size_t>(m_width) + static_cast<std::size_t>(given[k] - begin)] = values[k];
    }
    std::swap(m_positions, m_coordinates); // the stored rows, as writeStoredRows takes them
    writeStoredRows<T>();
}

void SparseRowStreamWriter::takeRows(std::int64_t firstRow, std::int64_t rows)
{
    if (firstRow != m_nextRow || rows < 0)
        throw InternalError("SparseRowStreamWriter: rows out of order");
    if (rows > 0 && firstRow + rows > m_endRow)
        miscounted(std::max(firstRow, m_endRow), 0);
    m_nextRow += rows;
}

void SparseRowStreamWriter::requireCounted(std::int64_t firstRow, std::int64_t rows) const
{
    // Each row's entries are those counted: indptr (csr), the stored rows (row_sparse) and
    // every rank's offsets came from them; and in row-major order, each once.
    const auto &positions = m_positions;
    const auto n = static_cast<std::int64_t>(positions.size());
    std::int64_t k = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
        const auto start = k;
        for (; k < n && positions[static_cast<std::size_t>(k)] < (r + 1) * m_width; ++k)
            if (positions[static_cast<std::size_t>(k)] < r * m_width
                || (k > start && positions[static_cast<std::size_t>(k)] <= positions[static_cast<std::size_t>(k - 1)]))
                throw InternalError("SparseRowStreamWriter: entries in row-major order, each once");
        if (k - start != counted(firstRow + r))
            miscounted(firstRow + r, k - start);
    }
    if (k != n)
        throw InternalError("SparseRowStreamWriter: entries past the block's rows");
}

template <class T>
void SparseRowStreamWriter::writeStoredRows()
{
    const auto &stored = m_positions;
    const auto n = static_cast<hsize_t>(stored.size());
    // Rows [first, first + n) of the stored rows' data, each whole.
    const auto first = static_cast<hsize_t>(m_nextStoredRow);
    m_nextStoredRow += static_cast<std::int64_t>(n);
    const auto *values = scratch<T>().data();
    // A coo's indices [1, rows] take them along dim 1, a row_sparse's [rows] along dim 0
    // (m_indexRows' axis).
    m_indexRows.append(first, n, H5T_NATIVE_INT64, stored.data());
    m_valueRows.append(first, n, valueType<T>().memory, values);
}

template <class T>
void SparseRowStreamWriter::writeEntriesGathered(std::int64_t firstRow, const T *kept)
{
    auto &positions = m_positions;
    const auto n = static_cast<hsize_t>(positions.size());
    const auto offset = static_cast<hsize_t>(m_nextEntry);
    m_nextEntry += static_cast<std::int64_t>(n);
    // Each position made its offset within its row, and each row's number (from the block's
    // first) kept in m_rowsOf: the positions ascend (requireCounted), so the row is found by
    // walking, where a division per entry took an eighth of a convert's time.
    auto &rowsOf = m_rowsOf;
    rowsOf.resize(n);
    for (std::int64_t k = 0, row = 0, rowStart = 0; k < static_cast<std::int64_t>(n); ++k) {
        auto &p = positions[static_cast<std::size_t>(k)];
        while (p >= rowStart + m_width) {
            ++row;
            rowStart += m_width;
        }
        p -= rowStart;
        rowsOf[static_cast<std::size_t>(k)] = row;
    }
    if (m_layout == Layout::Csr) {
        m_valueRows.append(offset, n, valueType<T>().memory, kept);
        if (m_wideIndices)
            m_indexRows.append(offset, n, H5T_NATIVE_INT64, positions.data());
        else
            m_indexRows.append(offset, n, H5T_NATIVE_INT32, narrowed(positions).data());
        return;
    }
    // coo: indices [rank, nnz], one coordinate row per dim.
    const auto rank = m_shape.size();
    auto &coordinates = m_coordinates;
    coordinates.resize(rank * n);
    for (hsize_t k = 0; k < n; ++k) {
        auto rest = positions[k]; // within its row
        for (std::size_t d = rank; d-- > 2;) {
            coordinates[d * n + k] = rest % m_shape[d];
            rest /= m_shape[d];
        }
        if (rank > 1)
            coordinates[n + k] = rest;
        coordinates[k] = firstRow + rowsOf[k];
    }
    m_indexRows.append(offset, n, H5T_NATIVE_INT64, coordinates.data());
    m_valueRows.append(offset, n, valueType<T>().memory, kept);
}

template void SparseRowStreamWriter::writeRows<float>(std::int64_t, std::int64_t, const float *);
template void SparseRowStreamWriter::writeRows<double>(std::int64_t, std::int64_t, const double *);
template void
    SparseRowStreamWriter::writeEntries<float>(std::int64_t, std::int64_t, Buffer<std::int64_t>, std::span<const float>);
template void
    SparseRowStreamWriter::writeEntries<double>(std::int64_t, std::int64_t, Buffer<std::int64_t>, std::span<const double>);
template void SparseRowStreamWriter::writeEntries<std::uint8_t>(std::int64_t,
                                                                std::int64_t,
                                                                Buffer<std::int64_t>,
                                                                std::span<const std::uint8_t>);

CscStreamWriter::CscStreamWriter(H5File &file,
                                 const std::string &path,
                                 const Shape &shape,
                                 DType type,
                                 const std::vector<std::int64_t> &storedPerColumn,
                                 const WriteOptions &options)
    : m_file(file), m_path(normalise(path))
{
    if (shape.size() != 2 || (type != DType::Float32 && type != DType::Float64 && type != DType::Bool)
        || static_cast<std::int64_t>(storedPerColumn.size()) != shape[1])
        throw InternalError("CscStreamWriter: unsupported element");
    m_indptr.reserve(storedPerColumn.size() + 1);
    m_indptr.push_back(0);
    for (const auto stored : storedPerColumn)
        m_indptr.push_back(m_indptr.back() + stored);
    const auto nnz = m_indptr.back();
    Writer writer(file, options);
    H5Handle group = writer.createGroup(m_path, "csc_matrix");
    writeIntArrayAttribute(group.id(), "shape", {shape.begin(), shape.end()});
    m_values = type == DType::Float32   ? writer.createArray<float>(m_path + "/data", {nnz})
               : type == DType::Float64 ? writer.createArray<double>(m_path + "/data", {nnz})
                                        : writer.createArray<std::uint8_t>(m_path + "/data", {nnz});
    // The bound writeTensor() uses for both index arrays.
    const auto bound = std::max({nnz, shape[0], shape[1]});
    m_wideIndices = wideIndices(options.indexWidth, bound, file.where(m_path + "/indices"));
    m_indices = m_wideIndices ? writer.createArray<std::int64_t>(m_path + "/indices", {nnz})
                              : writer.createArray<std::int32_t>(m_path + "/indices", {nnz});
    writer.writeIndexArray(m_path + "/indptr", m_indptr, bound);
}

template <class T>
void CscStreamWriter::writeEntries(std::int64_t offset, std::int64_t count, const T *values, const std::int64_t *rows)
{
    if (offset < 0 || count < 0 || offset + count > m_indptr.back())
        throw InternalError("CscStreamWriter: entries outside the element");
    // An empty run is still a call on a shared file, where every rank writes together.
    const auto start = static_cast<hsize_t>(offset), n = static_cast<hsize_t>(count);
    writeBox(m_file, m_path + "/data", m_values.id(), valueType<T>().memory, {start}, {n}, values);
    if (m_wideIndices) {
        writeBox(m_file, m_path + "/indices", m_indices.id(), H5T_NATIVE_INT64, {start}, {n}, rows);
        return;
    }
    writeBox(m_file, m_path + "/indices", m_indices.id(), H5T_NATIVE_INT32, {start}, {n},
             narrowed({rows, static_cast<std::size_t>(count)}).data());
}

template void CscStreamWriter::writeEntries<float>(std::int64_t, std::int64_t, const float *, const std::int64_t *);
template void CscStreamWriter::writeEntries<double>(std::int64_t, std::int64_t, const double *, const std::int64_t *);
template void CscStreamWriter::writeEntries<std::uint8_t>(std::int64_t, std::int64_t, const std::uint8_t *, const std::int64_t *);

CooEntryStreamWriter::CooEntryStreamWriter(H5File &file,
                                           const std::string &path,
                                           const Shape &shape,
                                           int sparseDims,
                                           std::int64_t entries,
                                           DType type,
                                           const WriteOptions &options)
    : m_file(file), m_path(normalise(path)), m_shape(shape), m_sparseDims(sparseDims), m_entries(entries)
{
    if (sparseDims < 0 || sparseDims > static_cast<int>(shape.size()) || entries < 0
        || (type != DType::Float32 && type != DType::Float64))
        throw InternalError("CooEntryStreamWriter: unsupported element");
    Writer writer(file, options);
    H5Handle group = writer.createGroup(m_path, "coo_tensor");
    writeIntArrayAttribute(group.id(), "shape", {shape.begin(), shape.end()});
    m_indices = writer.createArray<std::int64_t>(m_path + "/indices", {sparseDims, entries});
    Shape valuesShape{entries};
    valuesShape.insert(valuesShape.end(), shape.begin() + sparseDims, shape.end());
    m_values = type == DType::Float32 ? writer.createArray<float>(m_path + "/values", valuesShape)
                                      : writer.createArray<double>(m_path + "/values", valuesShape);
}

template <class T>
void CooEntryStreamWriter::writeEntries(std::int64_t offset, std::int64_t count, const std::int64_t *indices, const T *values)
{
    if (offset < 0 || count < 0 || offset + count > m_entries)
        throw InternalError("CooEntryStreamWriter: entries outside the element");
    // An empty run is still a call on a shared file, where every rank writes together.
    const auto start = static_cast<hsize_t>(offset), n = static_cast<hsize_t>(count);
    writeBox(m_file, m_path + "/indices", m_indices.id(), H5T_NATIVE_INT64, {0, start}, {static_cast<hsize_t>(m_sparseDims), n},
             indices);
    std::vector<hsize_t> first(m_shape.size() - static_cast<std::size_t>(m_sparseDims) + 1, 0), extent{n};
    first[0] = start;
    extent.insert(extent.end(), m_shape.begin() + m_sparseDims, m_shape.end());
    writeBox(m_file, m_path + "/values", m_values.id(), valueType<T>().memory, first, extent, values);
}

template void CooEntryStreamWriter::writeEntries<float>(std::int64_t, std::int64_t, const std::int64_t *, const float *);
template void CooEntryStreamWriter::writeEntries<double>(std::int64_t, std::int64_t, const std::int64_t *, const double *);

void createEncodedGroup(H5File &file, const std::string &path, const std::string &encoding)
{
    Writer(file, {}).createGroup(normalise(path), encoding);
}

void writeInt64Array(H5File &file, const std::string &path, const Shape &shape, const std::int64_t *values)
{
    Writer writer(file, {});
    H5Handle dataset = writer.writeArray<std::int64_t>(normalise(path), shape, values);
    writeEncoding(dataset.id(), "array", "0.2.0");
}

void writeTensor(H5File &file, const std::string &rawPath, const Tensor &tensor, const WriteOptions &options)
{
    const auto path = normalise(rawPath);
    Writer writer(file, options);
    if (!tensor.isMasked()) {
        tensor.visit([&](const auto &t) { writer.write(path, t); });
        return;
    }
    writer.createGroup(path, "masked_tensor");
    tensor.visit([&](const auto &t) {
        writer.write(path + "/data", t);
        // The mask shares the data's index structure: the same encoding with bool values.
        writer.write(path + "/mask", withValues<std::uint8_t>(t, *tensor.mask()));
    });
}

} // namespace sparsity::core
