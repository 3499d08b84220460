#include "core/io/parallel_deflate.h"

#include "core/io/h5_handle.h"
#include "core/util/errors.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <functional>
#include <new>
#include <numeric>
#include <omp.h>
#include <zlib.h>

namespace sparsity::core {
namespace {

hsize_t product(const std::vector<hsize_t> &v, std::size_t from = 0)
{
    return std::accumulate(v.begin() + static_cast<std::ptrdiff_t>(from), v.end(), hsize_t{1}, std::multiplies<>());
}

// Chunk `index` of the rows written (row chunks first, then the chunk grid of the other dims in
// row-major order): its origin in the dataset.
std::vector<hsize_t> chunkOrigin(const DeflatedChunks &layout, hsize_t firstRowChunk, hsize_t index)
{
    const auto rank = layout.dims.size();
    std::vector<hsize_t> origin(rank);
    if (rank == 0 || layout.chunk.size() != rank)
        throw InternalError("chunkOrigin: a chunked dataset of rank >= 1 expected");
    for (std::size_t d = rank; d-- > 1;) {
        const hsize_t across = (layout.dims[d] + layout.chunk[d] - 1) / layout.chunk[d];
        origin[d] = (index % across) * layout.chunk[d];
        index /= across;
    }
    origin[0] = (firstRowChunk + index) * layout.chunk[0];
    return origin;
}

// The chunk at `origin` copied out of `values` (rows [firstRow, ...), every other dim whole)
// into `chunk`, laid out as the chunk's full shape; the part past the dataset's edge is zero,
// as HDF5 fills it (the default fill value) before filtering an edge chunk.
void gatherChunk(const DeflatedChunks &layout,
                 const std::vector<hsize_t> &origin,
                 hsize_t firstRow,
                 const unsigned char *values,
                 unsigned char *chunk)
{
    const auto rank = layout.dims.size();
    const auto size = layout.elementSize;
    std::vector<hsize_t> extent(rank), chunkStride(rank, 1), dataStride(rank, 1);
    for (std::size_t d = 0; d < rank; ++d)
        extent[d] = std::min(layout.chunk[d], layout.dims[d] - origin[d]);
    for (std::size_t d = rank - 1; d-- > 0;) {
        chunkStride[d] = chunkStride[d + 1] * layout.chunk[d + 1];
        dataStride[d] = dataStride[d + 1] * layout.dims[d + 1];
    }
    if (!std::equal(extent.begin(), extent.end(), layout.chunk.begin()))
        std::memset(chunk, 0, product(layout.chunk) * size);
    // Each line along the last dim is one copy; an odometer walks the dims before it.
    std::vector<hsize_t> at(rank, 0);
    const auto line = extent[rank - 1] * size;
    while (true) {
        hsize_t to = 0, from = (origin[0] + at[0] - firstRow) * dataStride[0];
        for (std::size_t d = 0; d < rank; ++d)
            to += at[d] * chunkStride[d];
        for (std::size_t d = 1; d < rank; ++d)
            from += (origin[d] + at[d]) * dataStride[d];
        std::memcpy(chunk + to * size, values + from * size, line);
        std::size_t d = rank - 1;
        while (d-- > 0) {
            if (++at[d] < extent[d])
                break;
            at[d] = 0;
        }
        if (d == static_cast<std::size_t>(-1))
            return;
    }
}

// HDF5's shuffle filter: byte j of element i goes to j * n + i.
void shuffle(const unsigned char *in, unsigned char *out, std::size_t n, std::size_t size)
{
    for (std::size_t j = 0; j < size; ++j)
        for (std::size_t i = 0; i < n; ++i)
            out[j * n + i] = in[i * size + j];
}

// A gathered chunk through the dataset's filters. HDF5 1.10's deflate filter compresses into a
// buffer of compressBound() bytes, so a chunk that does not shrink is stored deflated all the
// same, a little larger (960,301 bytes for 960,000 of random bits: the test's case).
std::vector<unsigned char>
filterChunk(const DeflatedChunks &layout, const unsigned char *gathered, std::vector<unsigned char> &shuffled)
{
    const auto n = product(layout.chunk), bytes = n * layout.elementSize;
    const unsigned char *input = gathered;
    if (layout.shuffled && layout.elementSize > 1 && n > 1) {
        shuffle(gathered, shuffled.data(), n, layout.elementSize);
        input = shuffled.data();
    }
    std::vector<unsigned char> out(compressBound(static_cast<uLong>(bytes)));
    uLongf compressed = static_cast<uLongf>(out.size());
    const int status = compress2(out.data(), &compressed, input, static_cast<uLong>(bytes), static_cast<int>(layout.level));
    if (status == Z_MEM_ERROR)
        throw std::bad_alloc();
    if (status != Z_OK)
        throw InternalError("compress2 failed with status " + std::to_string(status));
    out.resize(compressed);
    return out;
}

} // namespace

std::optional<DeflatedChunks> deflatedChunksOf(hid_t dataset, hid_t memType)
{
    const H5Handle dcpl(H5Dget_create_plist(dataset), H5Pclose);
    if (!dcpl.isValid() || H5Pget_layout(dcpl.id()) != H5D_CHUNKED)
        return std::nullopt;
    const int filters = H5Pget_nfilters(dcpl.id());
    if (filters < 1 || filters > 2)
        return std::nullopt;
    DeflatedChunks layout;
    for (int i = 0; i < filters; ++i) {
        unsigned flags = 0, config = 0;
        unsigned values[8] = {};
        std::size_t count = 8;
        const H5Z_filter_t id = H5Pget_filter2(dcpl.id(), static_cast<unsigned>(i), &flags, &count, values, 0, nullptr, &config);
        if (id == H5Z_FILTER_SHUFFLE && i == 0 && filters == 2)
            layout.shuffled = true;
        else if (id == H5Z_FILTER_DEFLATE && i == filters - 1 && count >= 1 && values[0] <= 9)
            layout.level = values[0], layout.deflated = true;
        else
            return std::nullopt;
    }
    if (!layout.deflated)
        return std::nullopt;
    const H5Handle type(H5Dget_type(dataset), H5Tclose);
    if (!type.isValid() || H5Tequal(type.id(), memType) <= 0)
        return std::nullopt;
    layout.elementSize = H5Tget_size(type.id());
    const H5Handle space(H5Dget_space(dataset), H5Sclose);
    const int rank = space.isValid() ? H5Sget_simple_extent_ndims(space.id()) : -1;
    if (rank < 1 || layout.elementSize == 0)
        return std::nullopt;
    layout.dims.resize(static_cast<std::size_t>(rank));
    layout.chunk.resize(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space.id(), layout.dims.data(), nullptr);
    if (H5Pget_chunk(dcpl.id(), rank, layout.chunk.data()) != rank
        || std::any_of(layout.chunk.begin(), layout.chunk.end(), [](hsize_t c) { return c == 0; }))
        return std::nullopt;
    return layout;
}

ChunkRowSpan wholeChunkRows(const DeflatedChunks &layout, hsize_t firstRow, hsize_t rows)
{
    const auto c = layout.chunk[0], end = firstRow + rows;
    const hsize_t begin = (firstRow + c - 1) / c * c, last = end == layout.dims[0] ? end : end / c * c;
    return last > begin ? ChunkRowSpan{begin, last} : ChunkRowSpan{};
}

void writeDeflatedRows(hid_t dataset,
                       const DeflatedChunks &layout,
                       ChunkRowSpan range,
                       hsize_t firstRow,
                       const void *values,
                       const std::string &where,
                       const char *what)
{
    if (range.end <= range.begin)
        return;
    const auto c = layout.chunk[0];
    const hsize_t firstRowChunk = range.begin / c, rowChunks = (range.end + c - 1) / c - firstRowChunk;
    hsize_t perRowChunk = 1;
    for (std::size_t d = 1; d < layout.dims.size(); ++d)
        perRowChunk *= (layout.dims[d] + layout.chunk[d] - 1) / layout.chunk[d];
    const hsize_t chunks = rowChunks * perRowChunk;
    const auto chunkBytes = product(layout.chunk) * layout.elementSize;
    // A group of chunks is filtered at once, then written: every thread busy, and the filtered
    // chunks held (at most their raw size each) no more than about 8 MiB, or one per thread.
    const hsize_t group =
        std::max<hsize_t>(static_cast<hsize_t>(omp_get_max_threads()), std::max<hsize_t>(1, (hsize_t{8} << 20) / chunkBytes));
    const auto *source = static_cast<const unsigned char *>(values);
    std::vector<std::vector<unsigned char>> filtered;
    for (hsize_t first = 0; first < chunks; first += group) {
        const hsize_t count = std::min(group, chunks - first);
        filtered.assign(count, {});
        std::exception_ptr failure;
#pragma omp parallel if (count > 1)
        {
            std::vector<unsigned char> gathered, shuffled;
            try {
                gathered.resize(chunkBytes);
                shuffled.resize(layout.shuffled ? chunkBytes : 0);
            } catch (...) {
#pragma omp critical(sparsity_parallel_deflate)
                if (!failure)
                    failure = std::current_exception();
            }
#pragma omp for schedule(dynamic, 1)
            for (hsize_t i = 0; i < count; ++i) {
                if (gathered.size() != chunkBytes)
                    continue;
                try {
                    gatherChunk(layout, chunkOrigin(layout, firstRowChunk, first + i), firstRow, source, gathered.data());
                    filtered[i] = filterChunk(layout, gathered.data(), shuffled);
                } catch (...) {
#pragma omp critical(sparsity_parallel_deflate)
                    if (!failure)
                        failure = std::current_exception();
                }
            }
        }
        if (failure)
            std::rethrow_exception(failure);
        // In order, on this thread: HDF5 is called from one thread, and the file's layout is the
        // same from run to run.
        for (hsize_t i = 0; i < count; ++i) {
            const auto origin = chunkOrigin(layout, firstRowChunk, first + i);
            if (H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, origin.data(), filtered[i].size(), filtered[i].data()) < 0)
                throw IoError(where + ": cannot write " + what + " (disk full?)");
            filtered[i] = {};
        }
    }
}

} // namespace sparsity::core
