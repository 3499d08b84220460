#pragma once
// Writes of a dataset compressed the way h5_writer compresses (chunked, HDF5's shuffle filter
// then its deflate filter) with its chunks filtered on the OpenMP threads. HDF5 runs a
// dataset's filters on the one thread that calls H5Dwrite: a threshold of 256 MiB into
// `--gzip 4` spent 8.4 of its 8.5 s there (docs/PERFORMANCE.md, stop 62). Here each whole chunk
// is gathered (zeros past the dataset's edge, as HDF5 fills an edge chunk), shuffled and
// compressed by zlib exactly as HDF5's filters do it (compress2 at the dataset's level), and
// the chunks are then written in order with H5Dwrite_chunk: every chunk holds the bytes HDF5
// would have stored (core.h5_io compares them chunk by chunk), and the file reads the same in
// every HDF5 reader.
#include <cstdint>
#include <hdf5.h>
#include <optional>
#include <string>
#include <vector>

namespace sparsity::core {

struct DeflatedChunks {
    std::vector<hsize_t> dims;  // the dataset's
    std::vector<hsize_t> chunk; // its chunk's
    std::size_t elementSize = 0;
    unsigned level = 0;    // deflate's
    bool shuffled = false; // the shuffle filter first
    bool deflated = false; // the deflate filter last
};

// The dataset's layout if its values, in `memType`, may be written chunk by chunk here: a
// chunked dataset whose filters are deflate alone or after shuffle, whose file type is
// `memType` (no conversion on write). Nothing otherwise.
std::optional<DeflatedChunks> deflatedChunksOf(hid_t dataset, hid_t memType);

// The rows [begin, end) of a box whose other dims are whole that go through
// writeDeflatedRows(): the whole chunks of rows inside it (the rows up to the end of the dataset
// count as whole); begin == end when there are none. The rest is H5Dwrite's.
struct ChunkRowSpan {
    hsize_t begin = 0, end = 0;
};
ChunkRowSpan wholeChunkRows(const DeflatedChunks &layout, hsize_t firstRow, hsize_t rows);

// Writes rows [range.begin, range.end) of the dataset from `values`, which hold rows
// [firstRow, ...) of it (every other dim whole, row-major). A failed write is an IoError
// naming `where` and `what`.
void writeDeflatedRows(hid_t dataset,
                       const DeflatedChunks &layout,
                       ChunkRowSpan range,
                       hsize_t firstRow,
                       const void *values,
                       const std::string &where,
                       const char *what);

} // namespace sparsity::core
