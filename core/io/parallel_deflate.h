#pragma once
// Reads and writes of a dataset compressed the way h5_writer and h5py compress (chunked, HDF5's
// deflate filter, after its shuffle filter or alone) with its chunks filtered on the OpenMP
// threads. HDF5 runs a dataset's filters on the one thread that calls H5Dread or H5Dwrite: a threshold of 256 MiB into
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
    unsigned level = 0;      // deflate's
    unsigned shuffleBit = 0; // the shuffle filter's bit in a chunk's filter mask; 0: no shuffle
    unsigned deflateBit = 0; // the deflate filter's
};

// A box of a dataset: its first element and its extent in each dim.
struct DatasetBox {
    std::vector<hsize_t> start, count;
};

// How many of the dataset's chunks are filtered at once, between HDF5's calls: as many as 8 MiB
// holds (8 of h5_writer's 1 MiB chunks), one at least; a thread each, at most. The chunks held
// and the threads' scratch stay within the 64 MiB a command may take beyond its budget.
hsize_t chunksAtOnce(const DeflatedChunks &layout);

// The dataset's layout if its values, in `memType`, may be written chunk by chunk here: a
// chunked dataset whose filters are deflate alone or after shuffle, whose file type is
// `memType` (no conversion on write). Nothing otherwise.
std::optional<DeflatedChunks> deflatedChunksOf(hid_t dataset, hid_t memType);

// The rows [begin, end) of a box whose other dims are whole that writeDeflatedBox() can write:
// the whole chunks of rows inside it (the rows up to the end of the dataset count as whole);
// begin == end when there are none. The rest is H5Dwrite's.
struct ChunkRowSpan {
    hsize_t begin = 0, end = 0;
};
ChunkRowSpan wholeChunkRows(const DeflatedChunks &layout, hsize_t firstRow, hsize_t rows);

// Whether `box` is made of whole chunks: in each dim it begins where a chunk begins and ends
// where one ends or where the dataset does.
bool holdsWholeChunks(const DeflatedChunks &layout, const DatasetBox &box);

// Writes `box`, a box of whole chunks, from `values`, which hold it row-major. A failed write is
// an IoError naming `where` and `what`.
void writeDeflatedBox(hid_t dataset,
                      const DeflatedChunks &layout,
                      const DatasetBox &box,
                      const void *values,
                      const std::string &where,
                      const char *what);

// How many chunks of the dataset the box touches.
hsize_t chunksTouched(const DeflatedChunks &layout, const DatasetBox &box);

// How a chunk's values are copied out when memory holds them in another type than the file:
// `size` bytes each in memory, `convert` making `count` of them from as many stored values.
struct ValueConversion {
    std::size_t size = 0;
    void (*convert)(const unsigned char *stored, unsigned char *into, std::size_t count) = nullptr;
};

// Whether a read of the dataset keeps the chunks it ends inside for the next read, which begins
// in them (a pipeline's next block, or a reader's next small read, through a dataset opened
// again, whose HDF5 chunk cache starts empty): its file is open read-only, so no chunk changes
// while it stays open, and a chunk holds at most 4 MiB. Four chunks are kept, the latest.
bool keepsInflatedChunks(hid_t dataset, const DeflatedChunks &layout);

// Rows [begin, end) of the dataset (every other dim whole, row-major) into `into`: each chunk
// they touch read as stored with H5Dread_chunk, in order on this thread, then inflated and
// unshuffled (as its filter mask says) on the OpenMP threads, which copy out its rows in the
// range, through `conversion` when one is given (else as stored). False, with `into` partly
// written, where a chunk was never written (its fill value is H5Dread's to give) or does not
// inflate to its size: the caller reads with H5Dread then, which says what is wrong.
bool readDeflatedRows(hid_t dataset,
                      const DeflatedChunks &layout,
                      hsize_t begin,
                      hsize_t end,
                      void *into,
                      const ValueConversion *conversion = nullptr);
// The same of any box within the dataset, into `into` row-major in the box's shape.
bool readDeflatedBox(
    hid_t dataset, const DeflatedChunks &layout, const DatasetBox &box, void *into, const ValueConversion *conversion = nullptr);

} // namespace sparsity::core
