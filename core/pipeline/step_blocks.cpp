#include "core/pipeline/step_blocks.h"

#include "core/io/atomic_output.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/optim/optimizer_step.h"
#include "core/optim/semantics_comparison.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/coo_rows_exchange.h"
#include "core/pipeline/densified_rows.h"
#include "core/pipeline/repair_notices.h"
#include "core/pipeline/step_state_file.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/elapsed.h"
#include "core/util/errors.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace sparsity::core {
namespace {

// The files a streamed step reads: IN, and the parameter's (a batch's sparsified file, or the
// previous run's output when resuming).
struct StepSources {
    H5File input;
    std::optional<H5File> paramFile, previous;
    std::string paramPath;

    explicit StepSources(const StepRequest &request) : input(H5File::openRead(request.input))
    {
        if (request.stateFrom)
            previous.emplace(H5File::openRead(*request.stateFrom));
        else if (request.paramFile)
            paramFile.emplace(H5File::openRead(*request.paramFile));
        paramPath = request.stateFrom ? "/param" : request.param.value_or("/param");
    }
    const H5File &param() const { return previous ? *previous : paramFile ? *paramFile : input; }
};

// The first failure of the runs, in the order the whole-tensor step meets them: the main run's
// steps in order, then each compared run's. A later block may hold an earlier step's bad
// gradient, so blocks go on checking the steps before the failed one.
struct FirstFailure {
    std::int64_t at = std::numeric_limits<std::int64_t>::max(); // run * steps + step
    std::exception_ptr error;

    void record(std::int64_t position, std::exception_ptr e)
    {
        if (position < at) {
            at = position;
            error = std::move(e);
        }
    }
};

template <class T>
struct BlockState {
    DenseTensor<T> param;
    OptimizerState<T> state;
};

template <class T>
class BlockStepper {
public:
    BlockStepper(const StepRequest &request,
                 const StepRowPlan &plan,
                 const std::vector<OptimizerOptions> &runs,
                 const StepSources &sources,
                 ValidationReport &report,
                 std::int64_t budget,
                 std::int64_t share)
        : m_request(request), m_plan(plan), m_runs(runs), m_sources(sources), m_report(report), m_budget(budget),
          m_steps(static_cast<std::int64_t>(request.grads.size())),
          m_firstStep(sources.previous ? readPreviousStep(*sources.previous) : 0),
          m_paramWhere(sources.param().where(sources.paramPath))
    {
        // A plain dense parameter is read straight into the blocks; another is read as readTensor
        // reads it (which notes a conversion), then densified. One the plan reads whole (a coo
        // whose rows go back, a csc) that held whole would not fit its `share` of the budget is
        // read in bands of half that where it can be (densifiedReadOf): the blocks are read once,
        // in order, so each band is read once.
        const auto banded = [&](const H5File &file, const std::string &path, RowRead planned) {
            return planned == RowRead::Whole ? densifiedReadOf(file, requireElement(file, path), share) : planned;
        };
        const auto holdBands = [&](auto &element) {
            if (element.how() == RowRead::ByBands)
                element.holdBands(bandShareLeft(share, element.heldBytes(), share / 2));
        };
        m_param.emplace(sources.param(), sources.paramPath, banded(sources.param(), sources.paramPath, plan.param), &report);
        holdBands(*m_param);
        if (plan.maskDensified) // its notes come with its read (readWholeElements, or its first rows)
            m_maskDensified.emplace(sources.input, *request.mask, *plan.maskDensified, &m_maskNotes);
        m_gradientRepairs.assign(request.grads.size(), RepairNotices(&report));
        for (std::size_t g = 0; g < request.grads.size(); ++g)
            if (plan.gradientByRows[g] && requireElement(sources.input, request.grads[g]).layout == Layout::RowSparse)
                m_rowSparseReaders.try_emplace(g, sources.input, request.grads[g], &report);
        // The states last, as the whole step reads them (a row_sparse one checks its indices here).
        if (sources.previous) {
            const auto names = stateNames(m_runs[0]);
            m_states.reserve(names.size());
            for (std::size_t s = 0; s < names.size(); ++s) {
                const auto path = "/state/" + names[s];
                holdBands(
                    m_states.emplace_back(*sources.previous, path, banded(*sources.previous, path, plan.states[s]), nullptr));
            }
            m_lastUpdate.emplace(*sources.previous, "/last_update", banded(*sources.previous, "/last_update", plan.lastUpdate),
                                 nullptr);
            holdBands(*m_lastUpdate);
        }
    }

    // Reads the parameter, --mask, gradients and states that are not read by rows, each rank
    // only its rows of them (readOfOwnRows: a COO or CSC element's entries, and a masked_tensor's
    // of COO or CSC data and mask, are exchanged between the ranks; the other layouts are read whole by
    // every rank), and coalesces them once (the gradients once per run's semantics); blocks take
    // their rows. The parameter, the mask, the gradients with their patterns and the states
    // must fit the budget together, in that order: the first that does not is refused. A coo or
    // csc gradient that would not fit beside those before it is read by bands instead, by one
    // process (readsByBands): each block then reads its rows of it, as a gradient read by rows.
    // Collective.
    void readWholeElements(std::span<const RowRange> rowsOfRanks)
    {
        const auto &group = ranks();
        std::int64_t held = 0;
        const auto readWhole = [&](auto &element) {
            element.readWhole(rowsOfRanks, held);
            held += element.heldBytes();
        };
        readWhole(*m_param);
        if (m_maskDensified && m_maskDensified->how() == RowRead::Whole) {
            readWhole(*m_maskDensified);
            tellMaskNotes();
        }
        const auto &grads = m_request.grads;
        // Held by the gradients so far: those read whole, once coalesced; the readers of those read by bands.
        std::int64_t wholeGradientsHeld = 0;
        // A gradient given for several steps is read and coalesced once: its patterns serve each
        // of them (a failure in it stops its run at the first).
        for (std::size_t g = 0; g < grads.size(); ++g)
            m_readAs.push_back(static_cast<std::size_t>(std::find(grads.begin(), grads.end(), grads[g]) - grads.begin()));
        // What each gradient read here holds read whole, from its outline (once), and what the
        // gradients after each one hold at least: one is read whole only where that leaves them
        // room (two coo gradients under 900 bytes were refused where the first was read whole,
        // while both read by bands fit).
        std::vector<std::optional<std::int64_t>> whole(grads.size());
        std::vector<std::int64_t> leastAfter(grads.size() + 1, 0);
        for (auto g = grads.size(); g-- > 0;) {
            if (!m_plan.gradientByRows[g] && m_readAs[g] == g)
                whole[g] = wholeGradientBytes(g);
            leastAfter[g] = saturatedSum(leastAfter[g + 1], leastGradientBytes(whole[g]));
        }
        for (std::size_t g = 0; g < grads.size(); ++g) {
            m_wholeGradients.push_back({gradientName(g), {}});
            if (m_plan.gradientByRows[g] || m_readAs[g] != g)
                continue;
            if (readsByBands(whole[g], saturatedSum(held + wholeGradientsHeld, leastAfter[g + 1]))) {
                requireRoomToCountRows(held + wholeGradientsHeld, m_plan.paramShape[0], gradientName(g));
                // Notes what a whole read notes when it opens (a conversion), where that read notes it.
                m_bandReaders.emplace(g, openBandReader(m_sources.input, grads[g], &m_report));
                wholeGradientsHeld += m_bandReaders.at(g)->heldBytes();
                continue;
            }
            m_wholeGradients.back().tensor = readOfOwnRows(group, m_sources.input, grads[g], rowsOfRanks, &m_report);
            wholeGradientsHeld += gradientBytes(m_wholeGradients.back().tensor);
        }
        const auto coalescedHere = [&](std::size_t g) { return !readByRows(g) && m_readAs[g] == g; };
        agreeOn(group, [&] {
            // Every gradient read whole is held until all are coalesced, with its patterns, beside
            // the readers of those read by bands.
            std::int64_t gradientsHeld = 0;
            for (const auto &[g, reader] : m_bandReaders)
                gradientsHeld += reader->heldBytes();
            for (std::size_t g = 0; g < grads.size(); ++g)
                if (coalescedHere(g))
                    gradientsHeld += requireRoomForGradient(m_wholeGradients[g], held + gradientsHeld);
            m_whole.resize(m_runs.size());
            for (std::size_t run = 0; run < m_runs.size(); ++run) {
                for (std::size_t g = 0; g < grads.size(); ++g) {
                    m_whole[run].emplace_back();
                    if (!coalescedHere(g))
                        continue;
                    if (fillsEveryBlock(run)) {
                        const std::pair key{g, m_runs[run].semantics};
                        if (!m_fillSources.contains(key))
                            m_fillSources.emplace(key, fillSource<T>(m_wholeGradients[g].tensor, key.second));
                        continue;
                    }
                    guarded(static_cast<std::int64_t>(run), static_cast<std::int64_t>(g), [&] {
                        m_whole[run].back() = checkedPattern<T>(m_wholeGradients[g], m_runs[run], nullptr,
                                                                m_firstStep + static_cast<std::int64_t>(g) + 1);
                    });
                }
            }
        });
        // The coalesced patterns own their values (a gradient read whole is never dense), so
        // the tensors they came from can go.
        for (std::size_t g = 0; g < m_request.grads.size(); ++g) {
            const bool viewed = std::any_of(m_whole.begin(), m_whole.end(), [&](const auto &patterns) {
                return !patterns[g].values.empty() && patterns[g].values.data() != patterns[g].owned.data();
            });
            if (!viewed)
                m_wholeGradients[g].tensor = Tensor();
        }
        held = heldBytes();
        for (auto &state : m_states)
            readWhole(state);
        if (m_lastUpdate)
            readWhole(*m_lastUpdate);
    }

    // Coalescing a gradient read whole holds it and its patterns at once (one per run, one per
    // semantics for the runs that fill every block from it), beside `heldBefore`: refused over
    // the budget, as reading it over the budget is, so the peak stays within it. Returns what
    // it holds.
    std::int64_t requireRoomForGradient(const NamedGradient &gradient, std::int64_t heldBefore) const
    {
        const auto bytes = gradientBytes(gradient.tensor);
        requireRoomToCoalesce(heldBefore, bytes, gradient.name);
        return bytes;
    }

    // What a gradient read whole holds once coalesced: it, and its patterns.
    std::int64_t gradientBytes(const Tensor &gradient) const
    {
        std::int64_t bytes = core::heldBytes(gradient);
        for (const auto semantics : patternSemantics())
            bytes += coalescedBytes(gradient, semantics, sizeof(T));
        return bytes;
    }

    // The semantics of each pattern a gradient read whole is coalesced into: one for each run,
    // but one for each semantics among the runs that fill every block from it.
    std::vector<Semantics> patternSemantics() const
    {
        std::vector<Semantics> patterns;
        std::set<Semantics> filled;
        for (std::size_t run = 0; run < m_runs.size(); ++run)
            if (!fillsEveryBlock(run) || filled.insert(m_runs[run].semantics).second)
                patterns.push_back(m_runs[run].semantics);
        return patterns;
    }

    // Whether a gradient the plan reads whole, holding `whole` so (wholeGradientBytes), is read by
    // bands instead: a coo or csc (not masked: readableByBands) that would not fit the budget
    // beside `heldBefore`, by one process (across ranks each reads its own rows of it whole).
    bool readsByBands(std::optional<std::int64_t> whole, std::int64_t heldBefore) const
    {
        return ranks().isSolo() && whole && saturatedSum(heldBefore, *whole) > m_budget;
    }

    // What gradient `g` (a coo or csc, not masked) holds read whole and coalesced, judged from
    // its outline before reading it: its entries as read, and each pattern at most a value and an
    // index per stored value (gradientBytes, at most). None for another.
    std::optional<std::int64_t> wholeGradientBytes(std::size_t g) const
    {
        const auto element = requireElement(m_sources.input, m_request.grads[g]);
        const auto stored = element.masked ? std::nullopt : storedEntriesOf(m_sources.input, element);
        if (!stored)
            return std::nullopt;
        const auto patterns = static_cast<std::int64_t>(patternSemantics().size());
        return saturatedSum(stored->readBytes(), bytesFor(patterns, static_cast<std::size_t>(stored->coalescedBytes(sizeof(T)))));
    }

    // The least a gradient holds before the blocks, `whole` read whole (wholeGradientBytes; none
    // for one read by rows or given before, or whose outline does not say, which is refused when
    // read if it does not fit): that, or by one process its band reader's counts where less.
    std::int64_t leastGradientBytes(std::optional<std::int64_t> whole) const
    {
        if (!whole)
            return 0;
        return ranks().isSolo() ? std::min(*whole, rowCountBytes(m_plan.paramShape[0])) : *whole;
    }

    // Whether gradient `g` is read a block of rows at a time: by hyperslab or RowSparseRowReader
    // (the plan's), or by bands (readsByBands, its first path's reader).
    bool readByRows(std::size_t g) const { return m_plan.gradientByRows[g] || m_bandReaders.contains(m_readAs[g]); }
    // The gradients read by bands (one reader for each path given).
    std::int64_t gradientsReadByBands() const { return static_cast<std::int64_t>(m_bandReaders.size()); }
    // The values the gradients read by bands store in rows `rows`, duplicates too (each
    // gradient once, as readGradientRows reads it).
    std::int64_t bandValuesIn(RowRange rows) const
    {
        std::int64_t values = 0;
        for (const auto &[g, reader] : m_bandReaders)
            values += reader->entriesIn(rows) * reader->valuesPerEntry();
        return values;
    }
    // Each gradient read by bands is to be read in `reads` blocks of rows `span`, in order: past
    // kMostScannedBands its entries are spilled sorted by row first, in `memoryBytes` with the
    // spill's offsets (as many bytes as the reader's counts, which they replace).
    void planBandReads(RowRange span, std::int64_t reads, std::int64_t memoryBytes)
    {
        for (auto &[g, reader] : m_bandReaders)
            reader->planReads(span, reads, std::max<std::int64_t>(1, memoryBytes - reader->heldBytes()));
    }

    // The bytes the elements read whole hold for the whole run (their patterns), and the readers
    // of the gradients read by bands (their rows' counts).
    std::int64_t heldBytes() const
    {
        const auto bytesOf = [](const UpdatePattern<T> &p) {
            return static_cast<std::int64_t>(p.owned.size() * sizeof(T) + (p.rows.size() + p.elements.size()) * 8);
        };
        std::int64_t bytes = 0;
        for (const auto &patterns : m_whole)
            for (const auto &p : patterns)
                bytes += bytesOf(p);
        for (const auto &[key, p] : m_fillSources)
            bytes += bytesOf(p);
        for (const auto &gradient : m_wholeGradients)
            bytes += core::heldBytes(gradient.tensor); // what a pattern still views
        for (const auto &[g, reader] : m_bandReaders)
            bytes += reader->heldBytes();
        bytes += m_param->heldBytes() + (m_maskDensified ? m_maskDensified->heldBytes() : 0)
                 + (m_lastUpdate ? m_lastUpdate->heldBytes() : 0);
        for (const auto &state : m_states)
            bytes += state.heldBytes();
        return bytes;
    }

    // Whether run `run` fills every block from the gradients read whole, touching more than
    // they store (the dense semantics, the masked one with --mask): its patterns are built
    // per block from the gradients' fillSource, never at the parameter's size.
    bool fillsEveryBlock(std::size_t run) const
    {
        const auto semantics = m_runs[run].semantics;
        return semantics == Semantics::Dense || (semantics == Semantics::Masked && m_request.mask);
    }

    // The parameter's and the gradients' I7 notices, each rank's rows told in the root's report
    // (collective).
    void gatherRepairs()
    {
        m_param->gatherRepairs();
        for (auto &repairs : m_gradientRepairs)
            repairs.gatherAcrossRanks();
    }
    std::int64_t firstStep() const { return m_firstStep; }
    const FirstFailure &failure() const { return m_failure; }

    // The parameter and state of `rows` as read, before any step, in T (the compute type of the
    // parameter's dtype, which the whole step reads it in; states are written in it): densified
    // as the whole step densifies each (a plain dense one read straight into the block's buffers,
    // converted by HDF5 as a whole read converts).
    BlockState<T> read(RowRange rows)
    {
        BlockState<T> block;
        block.param = m_param->rows(rows, spareBuffer(0));
        // Said once, after what the first read notes (a conversion), as the whole step says it.
        if (m_param->how() != RowRead::Dense && !m_paramNoted)
            m_report.add(Severity::Notice, "", m_paramWhere, "parameter densified for the step");
        m_paramNoted = true;
        if (!m_sources.previous) {
            block.state = initialState<T>(m_runs[0], block.param.shape);
            return block;
        }
        block.state.step = m_firstStep;
        const auto names = stateNames(m_runs[0]);
        for (std::size_t s = 0; s < names.size(); ++s)
            block.state.buffers.push_back({names[s], m_states[s].rows(rows, spareBuffer(s + 1))});
        const auto last = m_lastUpdate->rows(rows);
        block.state.lastUpdate.assign(last.values.begin(), last.values.end());
        return block;
    }

    // A block written: the buffers read() reads the next block's rows into are kept, those of a
    // plain dense parameter and, resuming, of each plain dense state. Others (a fresh state is
    // made, a densified one built) would be held beside their replacements, past the budget.
    void recycle(BlockState<T> &&written)
    {
        m_spareBuffers.clear();
        m_spareBuffers.push_back(m_param->how() == RowRead::Dense ? std::move(written.param.values) : Buffer<T>());
        for (std::size_t s = 0; s < m_states.size() && s < written.state.buffers.size(); ++s)
            m_spareBuffers.push_back(m_states[s].how() == RowRead::Dense ? std::move(written.state.buffers[s].value.values)
                                                                         : Buffer<T>());
    }

    // Every step of run `run` on a block's `param` and `state` (rows `rows`), each gradient's
    // rows of it in order. A failing step is recorded and ends this run on this block.
    void step(std::size_t run,
              DenseTensor<T> &param,
              OptimizerState<T> &state,
              RowRange rows,
              const std::vector<NamedGradient> &rowGradients,
              const Tensor *mask)
    {
        const auto &options = m_runs[run];
        const Tensor *runMask = options.semantics == Semantics::Masked ? mask : nullptr;
        auto bufferRows = widensToTorchSparseSgd(options) ? rowsHeldByBuffer(state.lastUpdate) : std::vector<char>{};
        const auto base = static_cast<std::int64_t>(run) * m_steps;
        for (std::int64_t g = 0; g < m_steps && base + g < m_failure.at; ++g) {
            const auto k = static_cast<std::size_t>(g);
            const bool ok = guarded(static_cast<std::int64_t>(run), g, [&] {
                auto pattern = patternOf(run, k, rows, rowGradients, runMask, state.step + 1);
                if (!bufferRows.empty())
                    pattern = torchSparseSgdPattern(std::move(pattern), bufferRows);
                applyStep(param, state, options, pattern);
                if (fillsEveryBlock(run) && !readByRows(k)) { // its buffers fill the next such pattern
                    m_spare = std::move(pattern);
                    m_spare.values = {};
                }
            });
            if (!ok)
                return;
        }
    }

    // The rows `rows` of --mask (none without one): read, or densified (by rows, or filled from
    // the mask read once: its stored values summed from 0, so an element is in the mask where
    // densifying the whole mask gives a nonzero).
    std::optional<Tensor> readMaskRows(RowRange rows, bool first)
    {
        if (!m_request.mask)
            return std::nullopt;
        if (!m_maskDensified) {
            ValidationReport maskNotes; // the first block's, as for the gradients (no conversion)
            auto mask = readTensor(m_sources.input, *m_request.mask, first ? &maskNotes : nullptr, rows);
            appendAllButConversions(m_report, maskNotes);
            return mask;
        }
        Tensor mask(Storage{m_maskDensified->rows(rows)});
        if (first) // read by rows, its notes come with its first rows
            tellMaskNotes();
        return mask;
    }

    // What reading --mask densified noted, told once, as the whole step tells it (no conversion).
    void tellMaskNotes()
    {
        appendAllButConversions(m_report, m_maskNotes);
        m_maskNotes = ValidationReport();
    }

    // The rows of every gradient read by rows or by bands, before the first failed step
    // (patterns may view them: keep them while the block is stepped).
    std::vector<NamedGradient> readGradientRows(RowRange rows, bool first)
    {
        std::vector<NamedGradient> gradients(m_request.grads.size());
        for (std::size_t g = 0; g < gradients.size() && static_cast<std::int64_t>(g) < m_failure.at; ++g) {
            if (const auto banded = m_bandReaders.find(g); banded != m_bandReaders.end()) {
                gradients[g] = {gradientName(g), banded->second->readRows(rows)};
                continue;
            }
            if (!m_plan.gradientByRows[g])
                continue;
            const auto rowSparse = m_rowSparseReaders.find(g);
            if (rowSparse != m_rowSparseReaders.end()) {
                gradients[g] = {gradientName(g), rowSparse->second.readRows(rows)};
                continue;
            }
            // The first block's notes, and I7's of every block told as a whole read tells it.
            ValidationReport found;
            gradients[g] = {gradientName(g), readTensor(m_sources.input, m_request.grads[g], &found, rows)};
            for (const auto &finding : found.findings())
                if (RepairNotices::isRepair(finding))
                    m_gradientRepairs[g].tell(finding);
                else if (first)
                    m_report.add(finding);
        }
        return gradients;
    }

private:
    std::string gradientName(std::size_t g) const { return m_sources.input.where(m_request.grads[g]); }

    // The buffer of the last block written for tensor `k` (0 the parameter, then the states),
    // or none.
    Buffer<T> spareBuffer(std::size_t k) { return k < m_spareBuffers.size() ? std::move(m_spareBuffers[k]) : Buffer<T>(); }

    // Gradient `g`'s pattern for run `run`'s step `step` on `rows`: from its rows as read, filled
    // from what was read whole, or the rows of the pattern coalesced once.
    UpdatePattern<T> patternOf(std::size_t run,
                               std::size_t g,
                               RowRange rows,
                               const std::vector<NamedGradient> &rowGradients,
                               const Tensor *mask,
                               std::int64_t step)
    {
        const auto &options = m_runs[run];
        if (m_plan.gradientByRows[g])
            return checkedPattern<T>(rowGradients[g], options, mask, step, rows.begin);
        if (readByRows(g)) // by bands: read once for every step that gives its path
            return checkedPattern<T>(rowGradients[m_readAs[g]], options, mask, step, rows.begin);
        if (fillsEveryBlock(run))
            return checkedPatternInRows(m_fillSources.at({m_readAs[g], options.semantics}), gradientName(g), options, mask, step,
                                        rows, std::move(m_spare));
        return patternInRows(m_whole[run][m_readAs[g]], rows);
    }

    // Runs `work` for step `g` of run `run`; an input error becomes that step's recorded
    // failure (named by its run's semantics when runs are compared, as stepEachRun names them)
    // and returns false.
    template <class Work>
    bool guarded(std::int64_t run, std::int64_t g, Work &&work)
    {
        try {
            try {
                work();
            } catch (const Error &error) {
                if (m_runs.size() == 1)
                    throw;
                rethrowWithContext(error,
                                   std::string(semanticsName(m_runs[static_cast<std::size_t>(run)].semantics)) + " semantics");
            }
            return true;
        } catch (const InputError &) {
            m_failure.record(run * m_steps + g, std::current_exception());
            return false;
        }
    }

    const StepRequest &m_request;
    const StepRowPlan &m_plan;
    const std::vector<OptimizerOptions> &m_runs; // the step's, then each compared semantics'
    const StepSources &m_sources;
    ValidationReport &m_report;
    std::int64_t m_budget;
    std::int64_t m_steps;
    std::int64_t m_firstStep;
    std::string m_paramWhere;
    std::optional<DensifiedRows<T>> m_param;
    ValidationReport m_maskNotes;                    // what reading m_maskDensified notes, until told
    std::optional<DensifiedRows<T>> m_maskDensified; // a sparse --mask (StepRowPlan::maskDensified)
    std::vector<DensifiedRows<T>> m_states;          // resuming: each state of the run's optimizer
    std::optional<DensifiedRows<double>> m_lastUpdate;
    bool m_paramNoted = false;                                           // "densified" said (by the first block)
    std::vector<Buffer<T>> m_spareBuffers;                               // the last block written's (recycle())
    std::map<std::size_t, RowSparseRowReader> m_rowSparseReaders;        // row_sparse gradients read by rows
    std::map<std::size_t, std::unique_ptr<RowBandReader>> m_bandReaders; // gradients read by bands, by first index
    // Per gradient (one given twice is read, and told, twice, as the whole step tells it): of
    // the csr ones read by rows.
    std::vector<RepairNotices> m_gradientRepairs;
    std::vector<NamedGradient> m_wholeGradients; // per gradient: read whole, or an empty tensor
    std::vector<std::size_t> m_readAs;           // per gradient: the first given with its path, whose tensor and patterns it uses
    std::vector<std::vector<UpdatePattern<T>>> m_whole;                          // [run][gradient], may view m_wholeGradients
    std::map<std::pair<std::size_t, Semantics>, UpdatePattern<T>> m_fillSources; // of the runs that fill blocks
    UpdatePattern<T> m_spare; // the last step's pattern: its buffers fill the next one's
    FirstFailure m_failure;
};

// The dataset writers of OUT, in the order the whole-tensor step writes them.
struct StepWriters {
    std::vector<RowStreamWriter> tensors; // /param, then /state/<name>
    std::optional<RowStreamWriter> lastUpdate;
};

// What compareRuns() reports, before any row: every rank holds the same list, rows or none.
std::vector<TensorDivergence> noDivergence(const OptimizerOptions &options)
{
    std::vector<TensorDivergence> tensors{{"param"}};
    for (const auto &name : stateNames(options))
        tensors.push_back({name});
    tensors.push_back({"last_update"});
    return tensors;
}

void mergeDivergence(std::vector<TensorDivergence> &into, const std::vector<TensorDivergence> &block)
{
    for (std::size_t t = 0; t < into.size(); ++t) {
        into[t].maxAbsDiff = std::max(into[t].maxAbsDiff, block[t].maxAbsDiff);
        into[t].differingRows += block[t].differingRows;
    }
}

// A step's blocks (of one process) where gradients are read by bands: each block that holds
// more than `budget` (`perRowBeside` a row besides them, and kBandBytesPerValue for each value
// they store in its rows, duplicates too) is cut into blocks that each hold at most that, a row
// at least. The blocks were sized at one entry an element; a gradient with more in some rows (an
// embedding's hot rows, which a frequency-sorted vocabulary puts together) would have had a
// block hold many times the budget, and cutting every block as small as the most crowded one
// made a 100,000-row step 25x slower.
template <class T>
RankBlocks blocksHoldingBands(const BlockStepper<T> &stepper, RankBlocks blocks, std::int64_t budget, std::int64_t perRowBeside)
{
    const auto bytesOf = [&](RowRange rows) {
        return rows.count() * perRowBeside + stepper.bandValuesIn(rows) * kBandBytesPerValue;
    };
    std::vector<RowRange> cut;
    bool split = false;
    for (std::int64_t k = 0; k < blocks.count; ++k) {
        const auto block = blocks.block(k);
        if (bytesOf(block) <= budget) {
            cut.push_back(block);
            continue;
        }
        split = true;
        std::int64_t held = 0;
        auto first = block.begin;
        for (auto row = block.begin; row < block.end; ++row) {
            const auto here = bytesOf({row, row + 1});
            if (row > first && held + here > budget) {
                cut.push_back({first, row});
                first = row;
                held = 0;
            }
            held += here;
        }
        cut.push_back({first, block.end});
    }
    if (split)
        blocks.cutInto(std::move(cut));
    return blocks;
}

template <class T>
StepReport stepAs(const StepRequest &request,
                  const StepRowPlan &plan,
                  const OptimizerOptions &options,
                  const std::vector<OptimizerOptions> &compared,
                  ValidationReport &report,
                  std::int64_t budgetBytes,
                  const ProgressCallback &progress)
{
    const auto start = Clock::now();
    const auto &group = ranks();
    StepReport result;
    result.options = options;
    result.device = Device::Cpu;
    result.paramShape = plan.paramShape;
    result.dtype = dtypeOf<T>();
    result.stepsRun = static_cast<std::int64_t>(request.grads.size());
    result.streamed = true;
    std::vector<OptimizerOptions> runs{options};
    runs.insert(runs.end(), compared.begin(), compared.end());

    std::optional<StepSources> sources;
    std::optional<BlockStepper<T>> stepper;
    agreeOn(group, [&] {
        sources.emplace(request);
        // The densified elements the plan reads whole share the budget: each its part of it.
        const auto wholeElements = (plan.param == RowRead::Whole ? 1 : 0) + (plan.lastUpdate == RowRead::Whole ? 1 : 0)
                                   + std::count(plan.states.begin(), plan.states.end(), RowRead::Whole);
        stepper.emplace(request, plan, runs, *sources, report, budgetBytes,
                        budgetBytes / std::max<std::int64_t>(1, wholeElements));
    });
    result.finalStep = stepper->firstStep() + result.stepsRun;

    // The rows are divided among the ranks first (a coo gradient's entries go to their rows'
    // ranks), then cut into blocks of what the gradients read whole leave of the budget (at
    // least a row, at most kStepBlockBytes: a budget larger than the gradients and one block
    // leaves the blocks their size).
    const auto rows = plan.paramShape[0];
    auto blocks = divideRows(group, rows, 1);
    stepper->readWholeElements(blocks.ofRanks);

    // Per element of a block: the parameter and every state of each run (and the originals the
    // compared runs start from), the gradients read by rows (as read and as a pattern), those
    // read by bands (an entry an element at most: as read and as a pattern, kBandBytesPerValue),
    // the mask (as read, and as a pattern's doubles), one pattern filled from a gradient read
    // whole, a parameter and states that are not plain dense as read.
    const auto width = numel(plan.paramShape, 1, plan.paramShape.size());
    const auto copies = static_cast<std::int64_t>(runs.size() + (compared.empty() ? 0 : 1));
    const auto tensorsPerRun = static_cast<std::int64_t>(1 + stateNames(options).size());
    const auto byRows = std::count(plan.gradientByRows.begin(), plan.gradientByRows.end(), char{1});
    const auto byBands = stepper->gradientsReadByBands();
    const bool readWhole = byRows < static_cast<std::int64_t>(plan.gradientByRows.size());
    const auto notPlainDense =
        (plan.param == RowRead::Dense ? 0 : 1)
        + std::count_if(plan.states.begin(), plan.states.end(), [](RowRead how) { return how != RowRead::Dense; });
    const auto perRow = std::max<std::int64_t>(
        1, width
                   * (copies * tensorsPerRun * static_cast<std::int64_t>(sizeof(T)) + byRows * 16 + byBands * kBandBytesPerValue
                      + (request.mask ? 16 : 0) + (readWhole ? 16 : 0) + 16 * notPlainDense)
               + copies * 8 + (plan.lastUpdate == RowRead::Dense ? 0 : 16));
    const auto blockBudget = std::clamp<std::int64_t>(budgetBytes - stepper->heldBytes(), 0, kStepBlockBytes);
    blocks = recutBlocks(group, std::move(blocks), std::clamp<std::int64_t>(blockBudget / perRow, 1, rows));
    if (byBands > 0) // by one process
        blocks = blocksHoldingBands(*stepper, std::move(blocks), blockBudget, perRow - width * byBands * kBandBytesPerValue);
    // Before any block is held, the spill (if any) of the gradients read by bands, by one
    // process: its rows are all of them.
    stepper->planBandReads({0, rows}, blocks.rounds, std::max<std::int64_t>(1, budgetBytes - stepper->heldBytes()));

    AtomicOutput output(request.output);
    StepWriters writers;
    writers.tensors.reserve(1 + stateNames(options).size());
    writers.tensors.emplace_back(output.file(), "/param", plan.paramShape, dtypeOf<T>());
    for (const auto &name : stateNames(options))
        writers.tensors.emplace_back(output.file(), "/state/" + name, plan.paramShape, dtypeOf<T>());
    writeInt64Array(output.file(), "/state/step", {}, &result.finalStep);
    writers.lastUpdate.emplace(output.file(), "/last_update", Shape{rows}, DType::Int64);

    double computeSeconds = 0.0;
    std::vector<std::vector<TensorDivergence>> divergence(compared.size(), noDivergence(options));
    for (std::int64_t k = 0; k < blocks.rounds; ++k) {
        const auto block = blocks.block(k);
        std::optional<BlockState<T>> written;
        agreeOn(group, [&] {
            reportProgress(progress, k, blocks.rounds);
            if (block.count() == 0)
                return;
            auto read = stepper->read(block);
            const auto gradients = stepper->readGradientRows(block, k == 0);
            const auto mask = stepper->readMaskRows(block, k == 0);
            const auto computeStart = Clock::now();
            const auto initialLastUpdate = read.state.lastUpdate;
            // Every run from the block as read; the last one takes it (no copy without --compare).
            auto stepped = eachRunFromOneStart(
                std::move(read.param), std::move(read.state), std::span<const OptimizerOptions>(runs),
                [&](std::int64_t run, const OptimizerOptions &, DenseTensor<T> &param, OptimizerState<T> &state) {
                    stepper->step(static_cast<std::size_t>(run), param, state, block, gradients, mask ? &*mask : nullptr);
                },
                [](std::int64_t, const DenseTensor<T> &, const OptimizerState<T> &) {});
            for (std::size_t c = 0; c < compared.size(); ++c)
                mergeDivergence(divergence[c], stepped.divergence[c]);
            for (std::size_t r = 0; r < stepped.state.lastUpdate.size(); ++r)
                result.rowsWritten += stepped.state.lastUpdate[r] != initialLastUpdate[r];
            computeSeconds += secondsSince(computeStart);
            written = BlockState<T>{std::move(stepped.param), std::move(stepped.state)};
        });
        if (!written) {
            for (auto &writer : writers.tensors)
                writer.writeRows(block.begin, 0, nullptr);
            writers.lastUpdate->writeRows(block.begin, 0, nullptr);
            continue;
        }
        writers.tensors[0].writeRows(block.begin, block.count(), written->param.values.data());
        for (std::size_t s = 0; s < written->state.buffers.size(); ++s)
            writers.tensors[s + 1].writeRows(block.begin, block.count(), written->state.buffers[s].value.values.data());
        writers.lastUpdate->writeRows(block.begin, block.count(), written->state.lastUpdate.data());
        stepper->recycle(std::move(*written));
    }
    reportProgress(progress, blocks.rounds, blocks.rounds);

    // The failure the whole-tensor step would meet first: the earliest step of any rank, the
    // lowest rows among equals (agree() takes the lowest failed rank's).
    double first[] = {static_cast<double>(stepper->failure().at)};
    group.min(first);
    agreeOn(group, [&] {
        if (stepper->failure().error && static_cast<double>(stepper->failure().at) == first[0])
            std::rethrow_exception(stepper->failure().error);
    });
    stepper->gatherRepairs();

    result.rowsWritten = group.sum(result.rowsWritten);
    for (std::size_t c = 0; c < compared.size(); ++c) {
        auto &tensors = divergence[c];
        std::vector<double> maxima;
        std::vector<std::int64_t> differing;
        for (const auto &t : tensors) {
            maxima.push_back(t.maxAbsDiff);
            differing.push_back(t.differingRows);
        }
        group.max(maxima);
        group.sum(differing);
        for (std::size_t t = 0; t < tensors.size(); ++t) {
            tensors[t].maxAbsDiff = maxima[t];
            tensors[t].differingRows = differing[t];
        }
        result.divergence.push_back({compared[c].semantics, std::move(tensors)});
    }
    // The datasets close (writing what their caches hold) before the file does: a failure
    // there is then the commit's to report, and a shared file cannot close with them open.
    writers.tensors.clear();
    writers.lastUpdate.reset();
    output.commit();
    result.computeSeconds = computeSeconds;
    result.ioSeconds = secondsSince(start) - computeSeconds;
    return result;
}

} // namespace

StepRowPlan planStepInRows(const StepRequest &request, const OptimizerOptions &options, Device device)
{
    StepRowPlan plan;
    if (device != Device::Cpu)
        return plan;
    std::optional<StepSources> sources;
    std::optional<ElementInfo> param, mask;
    std::vector<ElementInfo> grads;
    try {
        sources.emplace(request);
        param = describeElement(sources->param(), sources->paramPath);
        for (const auto &path : request.grads)
            grads.push_back(requireElement(sources->input, path));
        if (request.mask)
            mask = requireElement(sources->input, *request.mask);
        // A plain dense parameter, one that reads by rows (csr, row_sparse, a masked_tensor of
        // one of those or dense data with a mask of its layout), or one read once (coo, csc,
        // other sparse masked ones).
        if (!param || param->dtype == DType::Bool || param->shape.empty() || numel(param->shape) == 0)
            return plan;
        plan.param = rowReadOf(sources->param(), *param);
        if (sources->previous) {
            // Each state and /last_update as the parameter reads (densified a block at a time as
            // the whole step densifies them). One read whole is summed in the compute type, so
            // it must be the one the whole step densifies it in: the parameter's (/last_update's
            // float64).
            const auto streams = [&](const std::string &path, DType computeType) -> std::optional<RowRead> {
                if (!linkExists(sources->previous->id(), path))
                    return std::nullopt;
                const auto element = describeElement(*sources->previous, path);
                if (!element || element->dtype == DType::Bool)
                    return std::nullopt;
                const auto how = rowReadOf(*sources->previous, *element);
                if (how == RowRead::Whole && computeTypeFor(element->dtype) != computeType)
                    return std::nullopt;
                return how;
            };
            for (const auto &name : stateNames(options)) {
                const auto how = streams("/state/" + name, computeTypeFor(param->dtype));
                if (!how)
                    return plan;
                plan.states.push_back(*how);
            }
            const auto how = streams("/last_update", DType::Float64);
            if (!how)
                return plan;
            plan.lastUpdate = *how;
        }
    } catch (const Error &) {
        return plan; // the whole-tensor step reports it
    }
    // Refused here with the whole step's messages, which it gives before reading any values.
    for (std::size_t g = 0; g < grads.size(); ++g)
        requireGradientShape(sources->input.where(request.grads[g]), grads[g].shape, param->shape);
    requireMaskFitsSemantics(mask.has_value(), options);
    if (sources->previous)
        requirePreviousStates(*sources->previous, options, param->shape);
    if (mask && mask->shape != param->shape)
        return plan;
    if (mask && !readableByRows(sources->input, *mask))
        // A sparse masked_tensor is read once, as the whole step reads it.
        plan.maskDensified =
            !mask->masked && rowReadOf(sources->input, *mask) == RowRead::ByRows ? RowRead::ByRows : RowRead::Whole;
    for (const auto &grad : grads)
        // By hyperslab or RowSparseRowReader (readGradientRows); a coo gradient, even one whose
        // rows ascend, is coalesced once and bucketed by block.
        plan.gradientByRows.push_back(readableByRows(sources->input, grad) || rowSparseReadableByRows(sources->input, grad) ? 1
                                                                                                                            : 0);
    plan.byRows = true;
    plan.paramShape = param->shape;
    plan.paramDType = param->dtype;
    return plan;
}

StepReport stepInBlocks(const StepRequest &request,
                        const StepRowPlan &plan,
                        const OptimizerOptions &options,
                        const std::vector<OptimizerOptions> &compared,
                        ValidationReport &report,
                        std::int64_t budgetBytes,
                        const ProgressCallback &progress)
{
    return withComputeType(plan.paramDType, [&](auto typeTag) {
        return stepAs<decltype(typeTag)>(request, plan, options, compared, report, budgetBytes, progress);
    });
}

} // namespace sparsity::core
