#include "core/pipeline/sparsify_blocks.h"

#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/parallel/lowest_across_ranks.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/csc_panels.h"
#include "core/pipeline/densified_rows.h"
#include "core/sparsify/mask_kernels.h"
#include "core/sparsify/sparsifier_methods.h"
#include "core/sparsify/sparsify_tally.h"
#include "core/tensor/buffer.h"
#include "core/util/elapsed.h"
#include "core/util/errors.h"
#include "core/util/memory_budget.h"
#include "core/util/serial_worker.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <future>
#include <numeric>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Blocks of a few MiB keep the I/O thread and the compute overlapped; a smaller budget
// makes them smaller.
constexpr std::int64_t kBlockBytes = std::int64_t{8} << 20;
constexpr int kSlots = 3; // block k+1 read, block k computed, block k-1 written

void wait(std::future<void> &f)
{
    if (f.valid())
        f.get();
}

// Waits for every task still pending, dropping their errors: before a failure unwinds, every
// write already submitted (on every rank alike) must be finished.
void drain(std::future<void> (&pending)[kSlots])
{
    for (auto &p : pending)
        try {
            wait(p);
        } catch (...) {
        }
}

// Every rank's data-norm block flags, in rank order (each rank's bands follow the rank
// before's), sent packed: a count, then a bit per block.
std::vector<bool> flagsOfEveryRank(const RankGroup &group, const std::vector<bool> &mine)
{
    if (group.isSolo())
        return mine;
    const auto count = static_cast<std::int64_t>(mine.size());
    std::vector<std::byte> packed(sizeof count + (mine.size() + 7) / 8);
    std::memcpy(packed.data(), &count, sizeof count);
    for (std::size_t i = 0; i < mine.size(); ++i)
        if (mine[i])
            packed[sizeof count + i / 8] |= std::byte{1} << (i % 8);
    const auto all = gatheredOnEveryRank(group, packed);
    std::vector<bool> flags;
    for (std::size_t at = 0; at < all.size();) {
        std::int64_t n = 0;
        std::memcpy(&n, all.data() + at, sizeof n);
        for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i)
            flags.push_back(std::to_integer<int>(all[at + sizeof n + i / 8] >> (i % 8)) & 1);
        at += sizeof n + (static_cast<std::size_t>(n) + 7) / 8;
    }
    return flags;
}

template <class T>
class BlockPipeline {
public:
    BlockPipeline(const SparsifyRequest &request,
                  const H5File &input,
                  const ElementInfo &e,
                  H5File &output,
                  ValidationReport &report,
                  std::int64_t budget)
        : m_config(request.configFor(e.path)), m_masked(request.masked), m_maskedInput(e.masked),
          m_reader(openOnEveryRank<T>(input, e.path, densifiedReadOf(input, e, budget), &report)), m_group(ranks())
    {
        m_shape = e.shape;
        m_rows = e.shape[0];
        m_width = numel(e.shape, 1, e.shape.size());
        m_needMask = m_masked || m_config.method != SparsifierMethod::Threshold;
        m_sparse = !m_masked && request.layout != Layout::Dense;
        m_csc = m_sparse && request.layout == Layout::Csc;
        // Per value: the block, its mask, a masked input's specified elements, for sparse
        // layouts what the writer gathers (the value, its position and its coordinates), and for
        // an input that is not plain dense the rows it densifies before copying them into the
        // block.
        const auto perValue = static_cast<std::int64_t>(sizeof(T) + (m_needMask ? 1 : 0) + (m_maskedInput ? 1 : 0))
                              + (m_sparse ? static_cast<std::int64_t>(sizeof(T) + 8 + 8 * e.shape.size()) : 0)
                              + (m_reader->how() == RowRead::Dense ? 0 : static_cast<std::int64_t>(sizeof(T)));
        m_rowBytes = std::max<std::int64_t>(1, m_width * perValue);
        // Every rank blocks the rows alike (the smallest block any rank's budget allows) and works
        // its own range of whole blocks; every rank makes as many write calls as the rank with
        // the most blocks (collective writes), the others writing nothing in their last ones.
        m_division = divideRows(m_group, m_rows, blockRowsWithin(budget));
        if (m_reader->how() == RowRead::Whole || m_reader->how() == RowRead::ByBands) {
            // A coo or csc input is read once (each rank its rows' entries; every entry for a
            // csc output, whose panels take every row) and held coalesced, refused when that
            // does not fit the budget; else, where it is read by bands, a band held coalesced
            // takes half the budget (a csc output's panels each read every band). The blocks
            // take what it leaves.
            const auto start = Clock::now();
            if (m_reader->how() == RowRead::ByBands)
                m_reader->holdBands(bandShareLeft(budget, m_reader->heldBytes(), budget / 2));
            else if (m_csc)
                m_reader->readWholeOnEveryRank(0);
            else
                m_reader->readWhole(m_division.ofRanks, 0);
            m_ioSeconds += secondsSince(start);
            budget = std::max<std::int64_t>(0, budget - m_reader->heldBytes());
            m_division = recutBlocks(m_group, std::move(m_division), blockRowsWithin(budget));
        }
        m_budget = budget;
        m_readsHere = !m_maskedInput && m_reader->readsWithoutHdf5();
        m_blockRows = m_division.blockRows;
        const auto blockValues = m_blockRows * m_width;
        const auto maskBytes = m_needMask ? kSlots * blockValues : 0;
        // An element that fits the budget is held, so that the passes after the first take it
        // from memory. Not where the compute threads read a plain dense input themselves and the
        // method reads it at most twice: that second read is a parallel copy from the page cache,
        // cheaper than faulting in a buffer of the element's size, and the peak stays a few
        // blocks (docs/PERFORMANCE.md, stop 62). csc reads its column panels from the file: its
        // first pass streams too.
        const auto residentValueBytes = sizeof(T) + (m_maskedInput ? 1 : 0);
        const bool heldWhenItFits = !m_readsHere || factsOf(m_config.method).choosesInRounds;
        m_resident =
            !m_csc && heldWhenItFits && bytesFor(m_division.mine.count() * m_width, residentValueBytes) <= budget - maskBytes;
        if (m_config.method == SparsifierMethod::DataNorm) {
            // Each round of the selection computes this rank's block scores again from its rows:
            // from memory when the element is resident (faster than holding the scores: 0.56 s
            // against 1.26 s for 16M blocks), else read again, unless the scores take a small part
            // of the budget, when they are held rather than the rows read once per round.
            m_blocksMine = blocksInRows(m_division.mine.count());
            // Every rank takes the same way: the selection's collective calls differ between them.
            m_scoresHeld = m_group.onEveryRank(!m_resident && bytesFor(m_blocksMine, sizeof(T) + 1) <= budget / 4);
        }
        m_values.resize(at(m_resident ? m_division.mine.count() * m_width : kSlots * blockValues));
        if (m_maskedInput)
            m_specified.resize(m_values.size());
        if (m_needMask)
            m_mask.resize(at(kSlots * blockValues));
        if (m_config.method == SparsifierMethod::RowNorm)
            m_norms.resize(at(m_division.mine.count()));

        if (m_csc)
            m_storedPerColumn.assign(at(m_width), 0);
        else if (m_sparse)
            m_storedPerRow = RowCounts(m_division.mine.count());
        if (m_csc && m_config.method == SparsifierMethod::DataNorm) {
            // Every rank holds every block's bit for its panels.
            const auto bytes = blocksInRows(m_rows) / 8;
            if (bytes > budget / 4)
                throw InputError("data-norm to csc: one bit per block (" + std::to_string(bytes)
                                 + " bytes) must fit a quarter of the memory limit (" + std::to_string(budget / 4) + " bytes)");
        }
        m_output = &output;
        m_writeOptions = request.writeOptions;
        m_layout = request.layout;
        m_type = dtypeOf<T>();
        m_path = e.path;

        const std::string dataPath = m_masked ? e.path + "/data" : e.path;
        if (m_masked)
            createEncodedGroup(output, e.path, "masked_tensor");
        if (!m_sparse)
            m_data.emplace(output, dataPath, e.shape, dtypeOf<T>(), request.writeOptions);
        if (m_masked)
            m_maskWriter.emplace(output, e.path + "/mask", e.shape, DType::Bool, request.writeOptions);
    }

    SparsifiedElement run()
    {
        SparsifiedElement r;
        FiniteRange range;
        {
            // Declared last so it stops before anything its tasks use goes away.
            SerialWorker io;
            firstPass(io, range, r.computeSeconds);
            if (m_csc) {
                cscPass(SparsifyTally(range.bounds()), r);
                return finish(r);
            }
            if (m_sparse) { // its sizes are known now; created here, before the I/O thread writes
                // The counts move into the writer, which checks each row against them.
                auto counts = sparseRowCountsAcrossRanks(m_division.mine.begin, std::move(m_storedPerRow));
                io.submit([this, &counts] {
                      m_sparseWriter.emplace(*m_output, m_path, m_layout, m_shape, m_type, std::move(counts), m_writeOptions);
                  }).get();
            }
            secondPass(io, SparsifyTally(range.bounds()), r);
        }
        return finish(r);
    }

private:
    // The rows of a block under `budget` (kSlots blocks and a spare): whole output chunks per
    // block (h5_writer's ~1 MiB chunks of a compressed output), so no chunk is written twice,
    // and whole bands of data-norm's blocks and whole groups of n-m's, which never straddle two
    // row blocks.
    std::int64_t blockRowsWithin(std::int64_t budget) const
    {
        const auto blockBytes = std::min(kBlockBytes, std::max<std::int64_t>(1, budget / (kSlots + 1)));
        auto blockRows = std::clamp<std::int64_t>(blockBytes / m_rowBytes, 1, std::max<std::int64_t>(m_rows, 1));
        const auto chunkRows =
            std::max<std::int64_t>(1, (std::int64_t{1} << 20) / std::max<std::int64_t>(1, m_width * std::int64_t(sizeof(T))));
        if (blockRows > chunkRows && blockRows < m_rows)
            blockRows -= blockRows % chunkRows;
        if (m_config.method == SparsifierMethod::DataNorm && blockRows < m_rows)
            blockRows = std::max(m_config.blockRows, blockRows - blockRows % m_config.blockRows);
        // n-m's groups of m run along the last dim: of a 1-d element, across its rows.
        if (m_config.method == SparsifierMethod::NM && m_shape.size() == 1 && blockRows < m_rows)
            blockRows = std::max(m_config.m, blockRows - blockRows % m_config.m);
        return blockRows;
    }

    // The element's report, whichever rank did which rows (collective).
    SparsifiedElement finish(SparsifiedElement r)
    {
        m_reader->gatherRepairs();
        std::int64_t counts[] = {r.nnzBefore, r.nnzAfter, r.pruned, r.held, m_resident ? 0 : 1};
        m_group.sum(counts);
        r.nnzBefore = counts[0];
        r.nnzAfter = counts[1];
        r.pruned = counts[2];
        r.held = counts[3]; // every element (an unstored one a 0), or a masked input's specified ones
        r.streamed = counts[4] > 0;
        for (auto *h : {&*r.histogramBefore, &*r.histogramAfter})
            m_group.sum(h->counts);
        double seconds[] = {r.computeSeconds, m_ioSeconds + m_readHereSeconds};
        m_group.max(seconds);
        r.computeSeconds = seconds[0];
        r.ioSeconds = seconds[1];
        r.blocksRemoved = m_blocksRemoved;
        return r;
    }

    // Block k of this rank's rows; past its last block, an empty one.
    std::int64_t firstRow(std::int64_t k) const { return m_division.block(k).begin; }
    std::int64_t endRow(std::int64_t k) const { return m_division.block(k).end; }
    std::int64_t countOf(std::int64_t k) const { return (endRow(k) - firstRow(k)) * m_width; }
    T *valuesOf(std::int64_t k)
    {
        return m_values.data()
               + (m_resident ? (firstRow(k) - m_division.mine.begin) * m_width : (k % kSlots) * m_blockRows * m_width);
    }
    std::uint8_t *maskOf(std::int64_t k) { return m_needMask ? m_mask.data() + (k % kSlots) * m_blockRows * m_width : nullptr; }
    // A masked input's specified elements of block k, beside its values; null for another.
    std::uint8_t *specifiedOf(std::int64_t k)
    {
        return m_maskedInput ? m_specified.data() + (valuesOf(k) - m_values.data()) : nullptr;
    }

    // Runs on the I/O thread; its time is the I/O time of the report. Where the compute threads
    // read (m_readsHere), nothing: readHere() reads the block when it is needed.
    std::future<void> read(SerialWorker &io, std::int64_t k)
    {
        if (m_readsHere)
            return {};
        return io.submit([this, k] {
            const auto t0 = Clock::now();
            m_reader->readRows({firstRow(k), endRow(k)}, valuesOf(k), specifiedOf(k));
            m_ioSeconds += secondsSince(t0);
        });
    }
    // Where the reader reads without HDF5 (a plain dense contiguous input: core/io/raw_values.h),
    // block k read here, on the compute threads at once, when it is needed: one I/O thread's
    // reads were a first pass's bottleneck (docs/PERFORMANCE.md, stop 61).
    void readHere(std::int64_t k)
    {
        if (!m_readsHere)
            return;
        const auto t0 = Clock::now();
        m_reader->readRows({firstRow(k), endRow(k)}, valuesOf(k));
        m_readHereSeconds += secondsSince(t0);
    }
    std::future<void> write(SerialWorker &io, std::int64_t k)
    {
        return io.submit([this, k] {
            const auto t0 = Clock::now();
            if (m_sparseWriter)
                m_sparseWriter->writeRows(firstRow(k), endRow(k) - firstRow(k), valuesOf(k));
            else
                m_data->writeRows(firstRow(k), endRow(k) - firstRow(k), valuesOf(k));
            if (m_maskWriter)
                m_maskWriter->writeRows(firstRow(k), endRow(k) - firstRow(k), maskOf(k));
            m_ioSeconds += secondsSince(t0);
        });
    }

    // The histogram range and row-norm's norms: every block read once. A resident element
    // stays in memory for the second pass; a streamed one is read again there. The ranks then
    // combine what needs every row: the range, data-norm's k lowest blocks, row-norm's kept rows.
    void firstPass(SerialWorker &io, FiniteRange &range, double &computeSeconds)
    {
        // A resident element's blocks are fresh memory, which the kernel zeroes at its first
        // touch: the compute threads, idle while the I/O thread reads, map block k + 2 while
        // block k + 1 is read, so the reads copy into mapped pages (docs/PERFORMANCE.md, stop 61).
        const auto populate = [this](std::int64_t k) {
            if (m_resident && !m_readsHere && k < m_division.count)
                populateForWrite(valuesOf(k), static_cast<std::size_t>(countOf(k)) * sizeof(T));
        };
        agreeOn(m_group, [&] {
            std::future<void> pending[kSlots];
            try {
                if (m_division.count > 0)
                    pending[0] = read(io, 0);
                populate(1);
                for (std::int64_t k = 0; k < m_division.count; ++k) {
                    if (k + 1 < m_division.count)
                        pending[(k + 1) % kSlots] = read(io, k + 1);
                    populate(k + 2);
                    wait(pending[k % kSlots]);
                    readHere(k);
                    const auto t0 = Clock::now();
                    finiteRangeOf(valuesOf(k), countOf(k), range);
                    if (m_config.method == SparsifierMethod::RowNorm)
                        rowNorms(valuesOf(k), m_norms.data() + (firstRow(k) - m_division.mine.begin), endRow(k) - firstRow(k),
                                 m_width);
                    if (m_config.method == SparsifierMethod::DataNorm) {
                        if (m_scoresHeld) {
                            const auto &scores = scoresOf(k);
                            m_scores.insert(m_scores.end(), scores.begin(), scores.end());
                        }
                    } else if (m_sparse && !(m_csc && m_config.method == SparsifierMethod::RowNorm)) {
                        countStored(k);
                    }
                    computeSeconds += secondsSince(t0);
                }
            } catch (...) {
                drain(pending);
                throw;
            }
        });
        m_group.min(std::span<double>(&range.lo, 1));
        m_group.max(std::span<double>(&range.hi, 1));
        if (m_config.method == SparsifierMethod::DataNorm) {
            // Bands of whole blocks, in order: each rank's scores are its rows' part of the
            // whole tensor's, row-major.
            const auto t0 = Clock::now();
            if (m_scoresHeld) {
                m_sparsifiedBlocks = sparsifiedBlocksAcrossRanks(m_group, m_scores, m_config.sparsityLevel);
                m_blocksRemoved = m_group.sum(std::count(m_sparsifiedBlocks.begin(), m_sparsifiedBlocks.end(), std::uint8_t{1}));
                computeSeconds += secondsSince(t0);
            } else {
                // The same selection, its rounds reading the rows again (their time is counted
                // in the passes).
                const auto blocks = blocksInRows(m_rows);
                const auto k = static_cast<std::int64_t>(std::nearbyint(m_config.sparsityLevel * static_cast<double>(blocks)));
                m_selection.emplace(m_group, m_blocksMine, k,
                                    [&](auto &&add) { agreeOn(m_group, [&] { scoringPass(io, add, computeSeconds); }); });
                m_blocksRemoved = m_selection->chosenCount();
            }
            if (m_sparse) { // its counts need the mask, known only now: the blocks once more
                startChoosing();
                agreeOn(m_group, [&] { countingPass(io, computeSeconds); });
            }
        }
        if (m_config.method == SparsifierMethod::RowNorm) {
            const auto t0 = Clock::now();
            m_keepRow = rowsKeptAcrossRanks(m_group, m_norms, m_config.keep);
            if (m_sparse)
                for (std::int64_t row = 0; row < m_storedPerRow.rows(); ++row)
                    if (m_keepRow[at(row)] == 0)
                        m_storedPerRow.set(row, 0);
            computeSeconds += secondsSince(t0);
            if (m_csc) // a column's count needs the kept rows: the blocks once more
                agreeOn(m_group, [&] { countingPass(io, computeSeconds); });
        }
    }

    // Mask, report and squash in one pass per block, written from the same buffer. Each
    // round's failure anywhere is agreed before its collective write.
    void secondPass(SerialWorker &io, SparsifyTally tally, SparsifiedElement &r)
    {
        if (m_config.method == SparsifierMethod::DataNorm)
            startChoosing();
        std::future<void> pending[kSlots];
        try {
            if (!m_resident && m_division.count > 0)
                pending[0] = read(io, 0);
            for (std::int64_t k = 0; k < m_division.rounds; ++k) {
                agreeOn(m_group, [&] {
                    if (!m_resident && k + 1 < m_division.count) {
                        wait(pending[(k + 1) % kSlots]); // block k-2's write: its slot is read into next
                        pending[(k + 1) % kSlots] = read(io, k + 1);
                    }
                    wait(pending[k % kSlots]); // this block's read, or the write of the block that had its slots
                    if (k < m_division.count) {
                        if (!m_resident)
                            readHere(k);
                        const auto t0 = Clock::now();
                        computeBlock(k, tally);
                        r.computeSeconds += secondsSince(t0);
                    }
                });
                pending[k % kSlots] = write(io, k);
            }
            for (auto &p : pending)
                wait(p);
        } catch (...) {
            drain(pending);
            throw;
        }
        takeTally(tally, r);
    }

    static void takeTally(const SparsifyTally &tally, SparsifiedElement &r)
    {
        r.nnzBefore = tally.nnzBefore;
        r.nnzAfter = tally.nnzAfter;
        r.pruned = tally.pruned;
        r.held = tally.held;
        r.histogramBefore = tally.histogramBefore();
        r.histogramAfter = tally.histogramAfter();
    }

    // csc: the element again in column panels (core/pipeline/csc_panels.h), each tile read,
    // masked, tallied and squashed as a block is. A rank's panels take every row: the column
    // counts, row-norm's kept rows and data-norm's block flags of every rank are gathered first.
    // Reads and writes are the pass's I/O time, the masks its compute time.
    void cscPass(SparsifyTally tally, SparsifiedElement &r)
    {
        const auto start = Clock::now();
        double computeSeconds = 0.0;
        m_values = Buffer<T>(); // the panels take the budget
        m_mask = Buffer<std::uint8_t>();
        m_specified = Buffer<std::uint8_t>();
        // Each rank told its own rows' notices in the first pass; its panels read every row,
        // which the other ranks told.
        m_reader->stopTellingRepairs();
        m_group.sum(m_storedPerColumn);
        if (m_config.method == SparsifierMethod::RowNorm) {
            const auto all = gatheredOnEveryRank(m_group, std::as_bytes(std::span(m_keepRow)));
            m_keepRow.resize(all.size());
            std::transform(all.begin(), all.end(), m_keepRow.begin(),
                           [](std::byte b) { return std::to_integer<std::uint8_t>(b); });
        }
        if (m_config.method == SparsifierMethod::DataNorm)
            m_cscFlags = flagsOfEveryRank(m_group, m_cscFlags);
        CscStreamWriter writer(*m_output, m_path, m_shape, m_type, m_storedPerColumn, m_writeOptions);
        CscPanels panels{m_rows, m_width};
        panels.costlyRereads = m_reader->rereadsCostly();
        if (m_config.method == SparsifierMethod::NM)
            panels.columnAlignment = m_config.m;
        if (m_config.method == SparsifierMethod::DataNorm) {
            panels.rowAlignment = m_config.blockRows;
            panels.columnAlignment = m_config.blockCols;
        }
        writeCscInPanels<T>(
            writer, panels, m_budget,
            [&](RowRange rows, RowRange columns, T *tile) {
                if (m_maskedInput)
                    m_specified.resize(at(rows.count() * columns.count()));
                m_reader->readBox(rows, columns, tile, m_maskedInput ? m_specified.data() : nullptr);
                const auto t0 = Clock::now();
                computeTile(rows, columns, tile, tally);
                computeSeconds += secondsSince(t0);
            },
            m_group);
        r.computeSeconds += computeSeconds;
        m_ioSeconds += secondsSince(start) - computeSeconds;
        takeTally(tally, r);
    }

    // computeBlock() for a tile of a column panel (rows of any rank): its mask from the
    // element's kept rows or block flags, gathered on every rank.
    void computeTile(RowRange rows, RowRange columns, T *values, SparsifyTally &tally)
    {
        const auto width = columns.count();
        const bool needsMask = m_config.method != SparsifierMethod::Threshold;
        const bool dataNorm = m_config.method == SparsifierMethod::DataNorm;
        if (needsMask && std::ssize(m_mask) < rows.count() * width)
            m_mask.resize(at(rows.count() * width));
        if (dataNorm) { // the tile's blocks: a sub-grid of the element's
            const auto bands = m_config.bandsIn(rows.count());
            const auto firstBlockColumn = columns.begin / m_config.blockCols;
            const auto blockColumnsOfTile = m_config.blockColumnsIn(width);
            m_flags.resize(at(bands * blockColumnsOfTile));
            for (std::int64_t b = 0; b < bands; ++b) {
                const auto band = (rows.begin / m_config.blockRows + b) * blockColumns() + firstBlockColumn;
                for (std::int64_t c = 0; c < blockColumnsOfTile; ++c)
                    m_flags[at(b * blockColumnsOfTile + c)] = m_cscFlags[at(band + c)];
            }
        }
        maskBox(values, needsMask ? m_mask.data() : nullptr, m_maskedInput ? m_specified.data() : nullptr, rows.count(), width,
                m_keepRow.empty() ? nullptr : m_keepRow.data() + rows.begin, dataNorm ? m_flags.data() : nullptr, true, tally);
    }

    // A pass over this rank's blocks in order, each read (unless resident) and handed to
    // `visit(k)`, whose time is compute time.
    template <class Visit>
    void readingPass(SerialWorker &io, Visit &&visit, double &computeSeconds)
    {
        std::future<void> pending[kSlots];
        try {
            if (!m_resident && m_division.count > 0)
                pending[0] = read(io, 0);
            for (std::int64_t k = 0; k < m_division.count; ++k) {
                if (!m_resident && k + 1 < m_division.count)
                    pending[(k + 1) % kSlots] = read(io, k + 1);
                wait(pending[k % kSlots]);
                if (!m_resident)
                    readHere(k);
                const auto t0 = Clock::now();
                visit(k);
                computeSeconds += secondsSince(t0);
            }
        } catch (...) {
            drain(pending);
            throw;
        }
    }

    void countingPass(SerialWorker &io, double &computeSeconds)
    {
        readingPass(
            io, [this](std::int64_t k) { countStored(k); }, computeSeconds);
    }

    // One round of the selection when the scores are not held: each block score, in order.
    template <class Add>
    void scoringPass(SerialWorker &io, Add &add, double &computeSeconds)
    {
        readingPass(
            io, [&](std::int64_t k) { add(std::span<const T>(scoresOf(k))); }, computeSeconds);
    }

    // data-norm: the element's columns of blocks, and the blocks of `rows` of its rows.
    std::int64_t blockColumns() const { return m_config.blockColumnsIn(m_width); }
    std::int64_t blocksInRows(std::int64_t rows) const { return m_config.blocksIn(rows, m_width); }

    // Before a pass that asks sparsifiedOf() block by block, in order.
    void startChoosing()
    {
        if (m_selection)
            m_chooser.emplace(*m_selection);
    }

    // data-norm: one flag per block of block k's band, whether the level sparsifies it. Asked
    // in block order within a pass when the scores are not held (their flags come in order).
    const std::uint8_t *sparsifiedOf(std::int64_t k)
    {
        if (m_scoresHeld)
            return m_sparsifiedBlocks.data() + ((firstRow(k) - m_division.mine.begin) / m_config.blockRows) * blockColumns();
        const auto &scores = scoresOf(k);
        m_flags.resize(scores.size());
        m_chooser->choose(scores, m_flags.data());
        return m_flags.data();
    }
    // data-norm: block k's block scores, in a buffer reused from block to block.
    const std::vector<T> &scoresOf(std::int64_t k)
    {
        const auto rows = endRow(k) - firstRow(k);
        m_blockScores.resize(at(blocksInRows(rows)));
        blockScoresInto(valuesOf(k), rows, m_width, m_config, m_blockScores.data());
        return m_blockScores;
    }

    // Nonzeros each row of block k keeps: the sizes of a sparse output. Row-norm counts every
    // nonzero here; rows it drops are zeroed once the ranking is known.
    void countStored(std::int64_t k)
    {
        const T *values = valuesOf(k);
        const auto rows = endRow(k) - firstRow(k);
        std::uint8_t *mask = maskOf(k);
        if (m_config.method == SparsifierMethod::NM)
            nmMask(values, mask, rows * m_width / m_config.m, m_config.n, m_config.m);
        if (m_config.method == SparsifierMethod::DataNorm) {
            const auto *flags = sparsifiedOf(k);
            dataNormMaskForBlocks(values, mask, rows, m_width, m_config, flags);
            if (m_csc) // the panels ask for them out of order: kept, a bit each
                m_cscFlags.insert(m_cscFlags.end(), flags, flags + blocksInRows(rows));
        }
        const auto threshold = static_cast<T>(m_config.threshold);
        const auto method = m_config.method;
        const auto width = m_width;
        // Row-norm keeps every nonzero here: csr counts are zeroed per dropped row once the
        // ranking is known, csc counts skip dropped rows (known by then: the ranking comes first).
        const std::uint8_t *keepRow = m_keepRow.empty() ? nullptr : m_keepRow.data() + (firstRow(k) - m_division.mine.begin);
        const auto stored = [=](std::int64_t j) -> std::int64_t {
            const bool keep = method == SparsifierMethod::Threshold ? !(std::abs(values[j]) < threshold)
                              : method == SparsifierMethod::RowNorm ? (keepRow == nullptr || keepRow[j / width] != 0)
                                                                    : mask[j] != 0;
            return keep && values[j] != T(0);
        };
        if (m_csc) {
            addStoredPerColumn(rows, width, m_storedPerColumn.data(), stored);
            return;
        }
        m_blockCounts.assign(at(rows), 0);
        std::int64_t *perRow = m_blockCounts.data();
#pragma omp parallel for schedule(static) if (rows * width >= (1 << 15))
        for (std::int64_t r = 0; r < rows; ++r) {
            std::int64_t n = 0;
            for (std::int64_t j = r * width; j < (r + 1) * width; ++j)
                n += stored(j);
            perRow[r] = n;
        }
        m_storedPerRow.setRows(firstRow(k) - m_division.mine.begin, m_blockCounts);
    }

    void computeBlock(std::int64_t k, SparsifyTally &tally)
    {
        const bool rowNorm = m_config.method == SparsifierMethod::RowNorm;
        maskBox(valuesOf(k), maskOf(k), specifiedOf(k), endRow(k) - firstRow(k), m_width,
                rowNorm ? m_keepRow.data() + (firstRow(k) - m_division.mine.begin) : nullptr,
                m_config.method == SparsifierMethod::DataNorm ? sparsifiedOf(k) : nullptr, !m_masked, tally);
    }

    // The method's mask of a box of height x width values (a block of rows, or a tile of a
    // column panel), applied (squashing when asked) and tallied in the same pass. `keepRows` is
    // row-norm's flag of each of the box's rows, `flags` data-norm's of each of its blocks;
    // `specified` a masked input's specified elements, the only ones the mask may keep.
    void maskBox(T *values,
                 std::uint8_t *mask,
                 const std::uint8_t *specified,
                 std::int64_t height,
                 std::int64_t width,
                 const std::uint8_t *keepRows,
                 const std::uint8_t *flags,
                 bool squash,
                 SparsifyTally &tally)
    {
        const auto count = height * width;
        switch (m_config.method) {
        case SparsifierMethod::Threshold:
            thresholdAndTally(values, mask, count, static_cast<T>(m_config.threshold), squash, tally, specified);
            return;
        case SparsifierMethod::NM:
            nmMask(values, mask, count / m_config.m, m_config.n, m_config.m);
            break;
        case SparsifierMethod::RowNorm:
            for (std::int64_t row = 0; row < height; ++row)
                std::fill_n(mask + row * width, width, keepRows[row]);
            break;
        case SparsifierMethod::DataNorm:
            dataNormMaskForBlocks(values, mask, height, width, m_config, flags);
            break;
        }
        if (specified)
            for (std::int64_t i = 0; i < count; ++i)
                mask[i] &= specified[i];
        applyMaskAndTally(values, mask, count, squash, tally, specified);
    }

    const SparsifierConfig &m_config;
    bool m_masked;                              // the output is a masked_tensor
    bool m_maskedInput;                         // the input is one (read by rows): its specified elements read beside its values
    std::unique_ptr<DensifiedRows<T>> m_reader; // a plain dense input by hyperslab; another densified by rows, or held coalesced
    std::optional<RowStreamWriter> m_data, m_maskWriter;
    std::optional<SparseRowStreamWriter> m_sparseWriter; // csr, coo, row_sparse
    bool m_sparse = false;
    RowCounts m_storedPerRow;                // what each row of a sparse output stores
    std::vector<std::int64_t> m_blockCounts; // a block's rows' share of it, as counted
    bool m_csc = false;
    std::vector<std::int64_t> m_storedPerColumn; // csc: the nonzeros each column keeps
    std::vector<bool> m_cscFlags;                // csc, data-norm: whether each block is sparsified, row-major
    std::int64_t m_budget = 0;
    H5File *m_output = nullptr;
    WriteOptions m_writeOptions;
    Layout m_layout = Layout::Dense;
    DType m_type = DType::Float32;
    Shape m_shape;
    std::string m_path;
    const RankGroup &m_group;
    std::int64_t m_rows = 0, m_width = 0, m_blockRows = 1, m_rowBytes = 1;
    RankBlocks m_division; // this rank's rows and blocks, and the write rounds every rank makes
    bool m_needMask = false, m_resident = false;
    bool m_readsHere = false; // the compute threads read the blocks (readHere), not the I/O thread
    Buffer<T> m_values;
    Buffer<std::uint8_t> m_mask;
    Buffer<std::uint8_t> m_specified; // a masked input's, laid out as m_values (a csc tile's alone in the panels)
    std::vector<double> m_norms;
    std::vector<std::uint8_t> m_keepRow;
    // data-norm: this rank's blocks, and either their scores and flags held (row-major), or the
    // selection found by rounds over the rows and the flags of the block being masked.
    std::int64_t m_blocksMine = 0;
    bool m_scoresHeld = true;
    std::vector<T> m_scores;
    std::vector<std::uint8_t> m_sparsifiedBlocks;
    std::optional<LowestKeys<T>> m_selection;
    std::optional<typename LowestKeys<T>::Chooser> m_chooser;
    std::vector<std::uint8_t> m_flags;
    std::vector<T> m_blockScores;
    std::int64_t m_blocksRemoved = 0;
    double m_ioSeconds = 0.0;       // written on the I/O thread, read after its futures are waited for
    double m_readHereSeconds = 0.0; // readHere's, on this thread
};

} // namespace

bool blockPipelineCan(const SparsifyRequest &request, const H5File &input, const ElementInfo &e)
{
    const auto &c = request.configFor(e.path);
    // data-norm bands rows of its 2-d view: the dataset's own rows when it is 2-d with no extent of 1.
    const bool rowsAreViewRows = e.shape.size() == 2 && e.shape[0] > 1 && e.shape[1] > 1;
    // A masked_tensor's specified elements come beside its values only when it is read by rows.
    return (c.method != SparsifierMethod::DataNorm || rowsAreViewRows) && !e.shape.empty() && !request.saveState
           && (!e.masked || rowReadOf(input, e) == RowRead::ByRows);
}

SparsifiedElement sparsifyInBlocks(const SparsifyRequest &request,
                                   const H5File &input,
                                   const ElementInfo &e,
                                   H5File &output,
                                   ValidationReport &report,
                                   std::int64_t budgetBytes)
{
    const auto where = input.where(e.path);
    try {
        auto r = withComputeType(e.dtype, [&](auto typeTag) {
            return BlockPipeline<decltype(typeTag)>(request, input, e, output, report, budgetBytes).run();
        });
        r.path = e.path;
        r.shape = e.shape;
        return r;
    } catch (const Error &error) {
        // An error located already (in the input, or a write to the output) keeps its own place.
        const std::string message = error.what();
        if (message.starts_with(where) || message.starts_with(output.where("")))
            throw;
        rethrowWithContext(error, where);
    }
}

} // namespace sparsity::core
