#include "core/io/parallel_deflate.h"

#include "core/io/h5_handle.h"
#include "core/parallel/first_exception.h"
#include "core/util/errors.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <numeric>
#include <omp.h>
#include <zlib.h>

namespace sparsity::core {
namespace {

hsize_t product(const std::vector<hsize_t> &v) { return std::accumulate(v.begin(), v.end(), hsize_t{1}, std::multiplies<>()); }

// A chunk's bytes in memory: its full shape, an edge chunk's too.
hsize_t chunkBytes(const DeflatedChunks &layout) { return product(layout.chunk) * layout.elementSize; }

// The chunks a box touches, in row-major order of the chunk grid: chunk `index` of them and
// its origin in the dataset.
class ChunkGrid {
public:
    ChunkGrid(const DeflatedChunks &layout, const DatasetBox &box) : m_chunk(layout.chunk)
    {
        const auto rank = layout.dims.size();
        if (rank == 0 || layout.chunk.size() != rank || box.start.size() != rank || box.count.size() != rank)
            throw InternalError("ChunkGrid: a box of the chunked dataset's rank expected");
        m_first.resize(rank);
        m_across.resize(rank);
        for (std::size_t d = 0; d < rank; ++d) {
            m_first[d] = box.start[d] / m_chunk[d];
            m_across[d] = box.count[d] == 0 ? 0 : (box.start[d] + box.count[d] - 1) / m_chunk[d] - m_first[d] + 1;
        }
        m_count = product(m_across);
    }
    hsize_t count() const { return m_count; }
    std::vector<hsize_t> origin(hsize_t index) const
    {
        std::vector<hsize_t> origin(m_chunk.size());
        for (std::size_t d = m_chunk.size(); d-- > 0;) {
            origin[d] = (m_first[d] + index % m_across[d]) * m_chunk[d];
            index /= m_across[d];
        }
        return origin;
    }

private:
    std::vector<hsize_t> m_chunk, m_first, m_across;
    hsize_t m_count = 0;
};

// Each line along the last dim of the chunk at `origin` that lies inside `box` (clipped to the
// dataset): line(chunk offset, offset in the box's values, row-major, elements), in elements.
// An odometer walks the dims before the last.
template <class Line>
void forEachLine(const DeflatedChunks &layout, const std::vector<hsize_t> &origin, const DatasetBox &box, Line line)
{
    const auto rank = layout.dims.size();
    std::vector<hsize_t> begin(rank), extent(rank), chunkStride(rank, 1), boxStride(rank, 1);
    for (std::size_t d = 0; d < rank; ++d) {
        const hsize_t lo = std::max(origin[d], box.start[d]);
        const hsize_t hi = std::min({origin[d] + layout.chunk[d], box.start[d] + box.count[d], layout.dims[d]});
        if (hi <= lo)
            return;
        begin[d] = lo - origin[d];
        extent[d] = hi - origin[d];
    }
    for (std::size_t d = rank - 1; d-- > 0;) {
        chunkStride[d] = chunkStride[d + 1] * layout.chunk[d + 1];
        boxStride[d] = boxStride[d + 1] * box.count[d + 1];
    }
    std::vector<hsize_t> at = begin;
    while (true) {
        hsize_t inChunk = 0, inBox = 0;
        for (std::size_t d = 0; d < rank; ++d) {
            inChunk += at[d] * chunkStride[d];
            inBox += (origin[d] + at[d] - box.start[d]) * boxStride[d];
        }
        line(inChunk, inBox, extent[rank - 1] - begin[rank - 1]);
        std::size_t d = rank - 1;
        while (d-- > 0) {
            if (++at[d] < extent[d])
                break;
            at[d] = begin[d];
        }
        if (d == static_cast<std::size_t>(-1))
            return;
    }
}

// Rows [begin, end) of the dataset, every other dim whole.
DatasetBox rowsBox(const DeflatedChunks &layout, hsize_t begin, hsize_t end)
{
    DatasetBox box{std::vector<hsize_t>(layout.dims.size(), 0), layout.dims};
    box.start[0] = begin;
    box.count[0] = end - begin;
    return box;
}

// The chunk at `origin` copied out of `values`, which hold `box` row-major, into `chunk`, laid
// out as the chunk's full shape; the part past the dataset's edge is zero, as HDF5 fills an
// edge chunk (the default fill value) before filtering it.
void gatherChunk(const DeflatedChunks &layout,
                 const std::vector<hsize_t> &origin,
                 const DatasetBox &box,
                 const unsigned char *values,
                 unsigned char *chunk)
{
    const auto size = layout.elementSize;
    bool edge = false;
    for (std::size_t d = 0; d < layout.dims.size(); ++d)
        edge |= origin[d] + layout.chunk[d] > layout.dims[d];
    if (edge)
        std::memset(chunk, 0, chunkBytes(layout));
    forEachLine(layout, origin, box, [&](hsize_t inChunk, hsize_t inData, hsize_t n) {
        std::memcpy(chunk + inChunk * size, values + inData * size, n * size);
    });
}

// The part of the chunk at `origin` (its full shape in `chunk`) inside `box` into `values`,
// which hold the box, converted on the way when `conversion` is given.
void scatterChunk(const DeflatedChunks &layout,
                  const std::vector<hsize_t> &origin,
                  const DatasetBox &box,
                  const unsigned char *chunk,
                  unsigned char *values,
                  const ValueConversion *conversion)
{
    const auto size = layout.elementSize;
    forEachLine(layout, origin, box, [&](hsize_t inChunk, hsize_t inData, hsize_t n) {
        if (conversion)
            conversion->convert(chunk + inChunk * size, values + inData * conversion->size, n);
        else
            std::memcpy(values + inData * size, chunk + inChunk * size, n * size);
    });
}

// HDF5's shuffle filter: byte j of element i goes to j * n + i.
void shuffle(const unsigned char *in, unsigned char *out, std::size_t n, std::size_t size)
{
    for (std::size_t j = 0; j < size; ++j)
        for (std::size_t i = 0; i < n; ++i)
            out[j * n + i] = in[i * size + j];
}

// Its inverse: byte i * size + j from j * n + i.
void unshuffle(const unsigned char *in, unsigned char *out, std::size_t n, std::size_t size)
{
    for (std::size_t j = 0; j < size; ++j)
        for (std::size_t i = 0; i < n; ++i)
            out[i * size + j] = in[j * n + i];
}

// A stored chunk back through the filters it went through (`mask`: those skipped), into
// `plain`; false where it does not inflate to the chunk's size.
bool unfilterChunk(const DeflatedChunks &layout,
                   const std::vector<unsigned char> &stored,
                   std::uint32_t mask,
                   std::vector<unsigned char> &inflated,
                   std::vector<unsigned char> &plain)
{
    const auto n = product(layout.chunk), bytes = n * layout.elementSize;
    const unsigned char *unpacked = stored.data();
    plain.resize(bytes);
    if ((mask & layout.deflateBit) == 0) {
        inflated.resize(bytes);
        uLongf length = static_cast<uLongf>(bytes);
        if (uncompress(inflated.data(), &length, stored.data(), static_cast<uLong>(stored.size())) != Z_OK || length != bytes)
            return false;
        unpacked = inflated.data();
    } else if (stored.size() != bytes) {
        return false;
    }
    if (layout.shuffleBit != 0 && (mask & layout.shuffleBit) == 0 && layout.elementSize > 1 && n > 1)
        unshuffle(unpacked, plain.data(), n, layout.elementSize);
    else
        std::memcpy(plain.data(), unpacked, bytes);
    return true;
}

// A gathered chunk through the dataset's filters. HDF5 1.10's deflate filter compresses into a
// buffer of compressBound() bytes, so a chunk that does not shrink is stored deflated all the
// same, a little larger (960,301 bytes for 960,000 of random bits: the test's case).
std::vector<unsigned char>
filterChunk(const DeflatedChunks &layout, const unsigned char *gathered, std::vector<unsigned char> &shuffled)
{
    const auto n = product(layout.chunk), bytes = n * layout.elementSize;
    const unsigned char *input = gathered;
    if (layout.shuffleBit != 0 && layout.elementSize > 1 && n > 1) {
        shuffled.resize(bytes);
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

// A team no larger than the chunks it filters: each thread holds a chunk or two of scratch.
int threadsFor(hsize_t chunks)
{
    return static_cast<int>(std::min<hsize_t>(chunks, static_cast<hsize_t>(omp_get_max_threads())));
}

// work(i, scratch, more) for i in [0, count) on a team of threads, each with two scratch buffers
// it sizes when it needs them (a chunk a read finds kept needs none, and a 1 MiB buffer costs
// its page faults each time); the first exception any of them throws is thrown here, after the
// team ends.
template <class Work>
void onThreads(hsize_t count, Work work)
{
    FirstException failure;
#pragma omp parallel if (count > 1) num_threads(threadsFor(count))
    {
        std::vector<unsigned char> scratch, more;
#pragma omp for schedule(dynamic, 1)
        for (hsize_t i = 0; i < count; ++i)
            failure.guard([&] { work(i, scratch, more); });
    }
    failure.rethrow();
}

// A chunk of a dataset of a file opened read-only, told apart from every other's while the
// file stays open: the file's number, the dataset's address in it, the chunk's place in the
// chunk grid and its stored size. (Not the chunk's address: HDF5 1.10's
// H5Dget_chunk_info_by_coord walks every chunk of the dataset to find one, so a read of
// many small chunks took time squared in their number.)
struct StoredChunkKey {
    unsigned long file = 0;
    haddr_t dataset = HADDR_UNDEF;
    hsize_t chunk = 0;
    hsize_t size = 0;
    bool operator==(const StoredChunkKey &) const = default;
};

// The chunks that reads lately inflated where the read ended inside them: the next read (a
// pipeline's next block, through a dataset opened again, whose HDF5 chunk cache starts empty)
// begins in them, and would inflate them a second time. Kept for files opened read-only, of
// chunks of at most 4 MiB: at most kKept, the latest.
class InflatedTails {
public:
    static constexpr std::size_t kKept = 4; // a csr's data and indices, or a coo's values and 2-d indices
    static constexpr hsize_t kLargest = hsize_t{4} << 20;

    // The chunk's plain bytes, taken out of the cache; empty when it holds none.
    std::vector<unsigned char> take(const StoredChunkKey &key)
    {
        const std::lock_guard lock(m_mutex);
        const auto found = std::find_if(m_tails.begin(), m_tails.end(), [&](const auto &tail) { return tail.first == key; });
        if (found == m_tails.end())
            return {};
        auto plain = std::move(found->second);
        m_tails.erase(found);
        return plain;
    }
    void keep(const StoredChunkKey &key, std::vector<unsigned char> plain)
    {
        const std::lock_guard lock(m_mutex);
        std::erase_if(m_tails, [&](const auto &tail) { return tail.first == key; });
        if (m_tails.size() == kKept)
            m_tails.erase(m_tails.begin());
        m_tails.emplace_back(key, std::move(plain));
    }

private:
    std::mutex m_mutex;
    std::vector<std::pair<StoredChunkKey, std::vector<unsigned char>>> m_tails; // oldest first
};

InflatedTails &inflatedTails()
{
    static InflatedTails tails;
    return tails;
}

// Where the dataset lies (its file's number and its address there), under which its chunks are
// kept in InflatedTails, when they may be: its file is open read-only (no chunk of it changes
// while it stays open) and a chunk is small enough to keep.
struct TailOwner {
    unsigned long file = 0;
    haddr_t dataset = HADDR_UNDEF;
};
std::optional<TailOwner> tailOwnerOf(hid_t dataset, const DeflatedChunks &layout)
{
    if (chunkBytes(layout) > InflatedTails::kLargest)
        return std::nullopt;
    const H5Handle file(H5Iget_file_id(dataset), H5Fclose);
    unsigned intent = 0;
    H5O_info_t info{};
    if (!file.isValid() || H5Fget_intent(file.id(), &intent) < 0 || (intent & H5F_ACC_RDWR) != 0
        || H5Oget_info2(dataset, &info, H5O_INFO_BASIC) < 0)
        return std::nullopt;
    return TailOwner{info.fileno, info.addr};
}

// The place of the chunk at `origin` in the dataset's chunk grid, row-major.
hsize_t chunkIndex(const DeflatedChunks &layout, const std::vector<hsize_t> &origin)
{
    hsize_t index = 0;
    for (std::size_t d = 0; d < origin.size(); ++d)
        index = index * ((layout.dims[d] + layout.chunk[d] - 1) / layout.chunk[d]) + origin[d] / layout.chunk[d];
    return index;
}

// Whether the chunk at `origin` reaches past the box's end in a dim where the dataset goes on:
// the next read of the next block begins in it.
bool cutAtEnd(const DeflatedChunks &layout, const std::vector<hsize_t> &origin, const DatasetBox &box)
{
    for (std::size_t d = 0; d < origin.size(); ++d) {
        const hsize_t end = box.start[d] + box.count[d];
        if (origin[d] + layout.chunk[d] > end && end < layout.dims[d])
            return true;
    }
    return false;
}

} // namespace

bool keepsInflatedChunks(hid_t dataset, const DeflatedChunks &layout) { return tailOwnerOf(dataset, layout).has_value(); }

hsize_t chunksAtOnce(const DeflatedChunks &layout) { return std::max<hsize_t>(1, (hsize_t{8} << 20) / chunkBytes(layout)); }

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
            layout.shuffleBit = 1u << i;
        else if (id == H5Z_FILTER_DEFLATE && i == filters - 1 && count >= 1 && values[0] <= 9)
            layout.level = values[0], layout.deflateBit = 1u << i;
        else
            return std::nullopt;
    }
    if (layout.deflateBit == 0)
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

hsize_t chunksTouched(const DeflatedChunks &layout, const DatasetBox &box) { return ChunkGrid(layout, box).count(); }

ChunkRowSpan wholeChunkRows(const DeflatedChunks &layout, hsize_t firstRow, hsize_t rows)
{
    const auto c = layout.chunk[0], end = firstRow + rows;
    const hsize_t begin = (firstRow + c - 1) / c * c, last = end == layout.dims[0] ? end : end / c * c;
    return last > begin ? ChunkRowSpan{begin, last} : ChunkRowSpan{};
}

bool holdsWholeChunks(const DeflatedChunks &layout, const DatasetBox &box)
{
    for (std::size_t d = 0; d < layout.dims.size(); ++d) {
        const hsize_t end = box.start[d] + box.count[d];
        if (box.count[d] == 0 || box.start[d] % layout.chunk[d] != 0 || (end % layout.chunk[d] != 0 && end != layout.dims[d]))
            return false;
    }
    return true;
}

void writeDeflatedBox(hid_t dataset,
                      const DeflatedChunks &layout,
                      const DatasetBox &box,
                      const void *values,
                      const std::string &where,
                      const char *what)
{
    if (!holdsWholeChunks(layout, box))
        throw InternalError("writeDeflatedBox: a box of whole chunks expected");
    const ChunkGrid run(layout, box);
    const auto bytes = chunkBytes(layout);
    const hsize_t group = chunksAtOnce(layout);
    const auto *source = static_cast<const unsigned char *>(values);
    std::vector<std::vector<unsigned char>> filtered;
    for (hsize_t first = 0; first < run.count(); first += group) {
        const hsize_t count = std::min(group, run.count() - first);
        filtered.assign(count, {});
        onThreads(count, [&](hsize_t i, std::vector<unsigned char> &gathered, std::vector<unsigned char> &shuffled) {
            gathered.resize(bytes);
            gatherChunk(layout, run.origin(first + i), box, source, gathered.data());
            filtered[i] = filterChunk(layout, gathered.data(), shuffled);
        });
        // In order, on this thread: HDF5 is called from one thread, and the file's layout is the
        // same from run to run.
        for (hsize_t i = 0; i < count; ++i) {
            const auto origin = run.origin(first + i);
            if (H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, origin.data(), filtered[i].size(), filtered[i].data()) < 0)
                throw IoError(where + ": cannot write " + what + " (disk full?)");
            filtered[i] = {};
        }
    }
}

bool readDeflatedBox(
    hid_t dataset, const DeflatedChunks &layout, const DatasetBox &box, void *into, const ValueConversion *conversion)
{
    const ChunkGrid run(layout, box);
    if (run.count() == 0)
        return true;
    const hsize_t group = chunksAtOnce(layout);
    // The chunks the read ends inside are kept for the next where the cache holds them all (not
    // the chunks of a column panel's whole height, each cut by the panel's last column).
    auto tailOwner = tailOwnerOf(dataset, layout);
    if (tailOwner) {
        std::size_t cut = 0;
        for (hsize_t i = 0; i < run.count() && cut <= InflatedTails::kKept; ++i)
            if (cutAtEnd(layout, run.origin(i), box))
                ++cut;
        if (cut > InflatedTails::kKept)
            tailOwner.reset();
    }
    auto *target = static_cast<unsigned char *>(into);
    std::vector<std::vector<unsigned char>> stored, kept;
    std::vector<StoredChunkKey> keys;
    std::vector<std::uint32_t> masks;
    std::vector<std::vector<hsize_t>> origins;
    std::vector<std::pair<StoredChunkKey, std::vector<unsigned char>>> tails; // for the next read
    std::mutex tailsMutex;
    for (hsize_t first = 0; first < run.count(); first += group) {
        const hsize_t count = std::min(group, run.count() - first);
        stored.assign(count, {});
        kept.assign(count, {});
        keys.assign(count, {});
        masks.assign(count, 0);
        origins.assign(count, {});
        // Read as stored, in order, on this thread: the one that calls HDF5.
        for (hsize_t i = 0; i < count; ++i) {
            origins[i] = run.origin(first + i);
            auto &key = keys[i];
            if (H5Dget_chunk_storage_size(dataset, origins[i].data(), &key.size) < 0 || key.size == 0)
                return false; // never written: its fill value is H5Dread's to give
            if (tailOwner) {
                key.file = tailOwner->file;
                key.dataset = tailOwner->dataset;
                key.chunk = chunkIndex(layout, origins[i]);
                if (!(kept[i] = inflatedTails().take(key)).empty())
                    continue;
            }
            stored[i].resize(key.size);
            if (H5Dread_chunk(dataset, H5P_DEFAULT, origins[i].data(), &masks[i], stored[i].data()) < 0)
                return false;
        }
        std::atomic<bool> inflated = true;
        onThreads(count, [&](hsize_t i, std::vector<unsigned char> &scratch, std::vector<unsigned char> &plain) {
            if (kept[i].empty() && !unfilterChunk(layout, stored[i], masks[i], scratch, plain)) {
                inflated = false;
                return;
            }
            const auto &chunk = kept[i].empty() ? plain : kept[i];
            scatterChunk(layout, origins[i], box, chunk.data(), target, conversion);
            if (tailOwner && cutAtEnd(layout, origins[i], box)) {
                const std::lock_guard lock(tailsMutex);
                // A kept chunk goes back as it is; one inflated here is copied out of the scratch.
                if (kept[i].empty())
                    tails.emplace_back(keys[i], plain);
                else
                    tails.emplace_back(keys[i], std::move(kept[i]));
            }
        });
        if (!inflated)
            return false;
    }
    for (auto &[key, plain] : tails)
        inflatedTails().keep(key, std::move(plain));
    return true;
}

bool readDeflatedRows(
    hid_t dataset, const DeflatedChunks &layout, hsize_t begin, hsize_t end, void *into, const ValueConversion *conversion)
{
    return readDeflatedBox(dataset, layout, rowsBox(layout, begin, end), into, conversion);
}

} // namespace sparsity::core
