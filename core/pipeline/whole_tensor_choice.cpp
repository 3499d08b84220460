#include "core/pipeline/whole_tensor_choice.h"

#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/densified_rows.h"
#include "core/sparsify/data_sparsifier.h"
#include "core/sparsify/mask_kernels.h"
#include "core/sparsify/sparsifier_methods.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <utility>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// Rows of an element read by rows, densified in its compute type T as computeMask densifies the
// whole (DensifiedRows), into one buffer reused from read to read: a plain dense dataset's are
// read straight into it. `visit(values)` gets the rows as a DenseTensor<T>.
template <class Visit>
void visitRows(const H5File &file, const std::string &path, std::span<const RowRange> reads, Visit &&visit)
{
    const auto element = requireElement(file, path);
    const auto read = [&](auto typeTag) {
        using T = decltype(typeTag);
        DensifiedRows<T> rows(file, path, rowReadOf(file, element), nullptr);
        Buffer<T> reused;
        for (const auto &range : reads) {
            auto values = rows.rows(range, std::move(reused));
            visit(std::as_const(values));
            reused = std::move(values.values);
        }
    };
    withComputeType(element.dtype, read);
}

} // namespace

WholeTensorChoice::WholeTensorChoice(const H5File &file,
                                     std::string path,
                                     const SparsifierConfig &config,
                                     const ProgressCallback &progress,
                                     std::int64_t readBytes)
    : m_path(std::move(path)), m_config(config)
{
    config.validate();
    if (!factsOf(config.method).ranksWholeTensor)
        throw InternalError("WholeTensorChoice: a method that ranks the whole tensor expected");
    const auto element = requireElement(file, m_path);
    if (element.masked || element.shape.empty() || rowReadOf(file, element) == RowRead::Whole)
        throw InternalError("WholeTensorChoice: an unmasked element with rows, read by rows, expected");
    requireLeastRank(config.method, element.shape.size());
    m_shape = element.shape;
    const auto rows = m_shape[0];
    m_rowWidth = numel(m_shape, 1, m_shape.size());
    // (not a structured binding: clang 14, the fuzz build's, cannot capture one in a lambda)
    const auto view = dataNormView(m_shape);
    const auto height = view.first, width = view.second;
    m_viewWidth = width;
    // The view's rows are the element's, `height / rows` each, unless the view is one row.
    m_viewRowsPerRow = height == 1 && rows > 1 ? 0 : height / std::max<std::int64_t>(rows, 1);
    if (m_rowWidth == 0) // rows of no values: no scores, and every mask of its rows is empty
        return;
    const bool dataNorm = config.method == SparsifierMethod::DataNorm;

    // Reads of whole data-norm bands (or, of a one-row view, whole blocks).
    std::int64_t step = 1;
    if (dataNorm)
        step = m_viewRowsPerRow == 0 ? config.blockCols : config.blockRows / std::gcd(config.blockRows, m_viewRowsPerRow);
    // A row densified takes at most 8 bytes a value. Whole bands are read at once, so a band of
    // tall blocks may take more than `readBytes`.
    const auto rowBytes = std::max<std::int64_t>(1, m_rowWidth * 8);
    const auto chunk = std::max(step, readBytes / rowBytes / step * step);
    const auto scoreBytes = computeTypeFor(element.dtype) == DType::Float32 ? 4 : 8;
    const auto kept = dataNorm ? config.blocksIn(height, width) * scoreBytes : rows * std::int64_t{sizeof(double)};
    if (kept > kMaxKeptBytes)
        throw InputError(file.where(m_path) + ": ranking its whole table for the preview takes " + std::to_string(kept >> 20)
                         + " MiB, more than the " + std::to_string(kMaxKeptBytes >> 20) + " MiB the preview may hold");
    if (!dataNorm)
        m_norms.resize(at(rows));
    std::vector<RowRange> reads;
    for (std::int64_t begin = 0; begin < rows; begin += chunk)
        reads.push_back({begin, std::min(rows, begin + chunk)});
    std::int64_t done = 0; // rows read
    visitRows(file, m_path, reads, [&](const auto &values) {
        using T = typename std::decay_t<decltype(values.values)>::value_type;
        reportProgress(progress, done, rows);
        const auto count = values.shape[0];
        if (!dataNorm) {
            rowNorms(values.values.data(), m_norms.data() + done, count, m_rowWidth);
        } else {
            if (done == 0) { // every block's score, in place: growing them would copy them
                m_scores = std::vector<T>{};
                std::get<std::vector<T>>(m_scores).reserve(at(config.blocksIn(height, width)));
            }
            auto &scores = std::get<std::vector<T>>(m_scores);
            const auto first = scores.size();
            if (m_viewRowsPerRow == 0) { // whole blocks of the one view row
                scores.resize(first + at(config.blockColumnsIn(count)));
                blockScoresInto(values.values.data(), 1, count, config, scores.data() + first);
            } else { // whole bands
                const auto viewRows = count * m_viewRowsPerRow;
                scores.resize(first + at(config.blocksIn(viewRows, m_viewWidth)));
                blockScoresInto(values.values.data(), viewRows, m_viewWidth, config, scores.data() + first);
            }
        }
        done += count;
    });
    reportProgress(progress, rows, rows);
}

bool WholeTensorChoice::sameChoice(const SparsifierConfig &a, const SparsifierConfig &b)
{
    if (a.method != b.method)
        return false;
    return a.method != SparsifierMethod::DataNorm
           || (a.blockRows == b.blockRows && a.blockCols == b.blockCols && a.norm == b.norm);
}

Mask WholeTensorChoice::maskOfRows(const H5File &file, RowRange rows, const SparsifierConfig &config) const
{
    config.validate();
    if (!serves(config) || !rows.within(m_shape[0]))
        throw InternalError("WholeTensorChoice::maskOfRows: a config it serves and rows of the element expected");
    if (requireElement(file, m_path).shape != m_shape)
        throw InputError(file.where(m_path) + ": its shape changed since its whole table was ranked");
    Mask mask(at(rows.count() * m_rowWidth));
    if (mask.empty()) // no rows, or rows of no values (a dim of size 0)
        return mask;
    if (config.method == SparsifierMethod::RowNorm) {
        const auto kept = rowsKeptAcrossRanks(SoloRanks(), m_norms, config.keep);
        for (auto row = rows.begin; row < rows.end; ++row)
            std::fill_n(mask.begin() + (row - rows.begin) * m_rowWidth, m_rowWidth, kept[at(row)]);
        return mask;
    }
    std::visit(
        [&](const auto &scores) {
            const auto sparsified = sparsifiedBlocks(scores, config.sparsityLevel);
            // The whole blocks the rows lie in are masked (a block's zeros are its smallest
            // entries), from the element's rows they span; then the rows' part is kept.
            if (m_viewRowsPerRow == 0) { // blocks of `bw` values along the one view row
                const auto bw = config.blockCols;
                const auto first = rows.begin / bw * bw, last = std::min(m_shape[0], (rows.end + bw - 1) / bw * bw);
                visitRows(file, m_path, std::array{RowRange{first, last}}, [&](const auto &values) {
                    Mask spanned(values.values.size());
                    dataNormMaskForBlocks(values.values.data(), spanned.data(), 1, last - first, config,
                                          sparsified.data() + first / bw);
                    std::copy_n(spanned.begin() + (rows.begin - first), mask.size(), mask.begin());
                });
                return;
            }
            // Bands of `bh` view rows, `k` view rows to an element's row.
            const auto k = m_viewRowsPerRow, bh = config.blockRows, width = m_viewWidth;
            const auto windowBegin = rows.begin * k, windowEnd = rows.end * k; // view rows
            const auto firstBand = windowBegin / bh, endBand = (windowEnd + bh - 1) / bh;
            const auto bandsBegin = firstBand * bh, bandsEnd = std::min(m_shape[0] * k, endBand * bh);
            const auto first = bandsBegin / k, last = (bandsEnd + k - 1) / k; // the element's rows
            const auto lead = bandsBegin - first * k;                         // view rows read before the first band
            visitRows(file, m_path, std::array{RowRange{first, last}}, [&](const auto &values) {
                Mask spanned(values.values.size());
                dataNormMaskForBlocks(values.values.data() + lead * width, spanned.data() + lead * width, bandsEnd - bandsBegin,
                                      width, config, sparsified.data() + firstBand * config.blockColumnsIn(width));
                std::copy_n(spanned.begin() + (windowBegin - first * k) * width, mask.size(), mask.begin());
            });
        },
        m_scores);
    return mask;
}

} // namespace sparsity::core
