#pragma once
// What a recipe that ranks the whole tensor (data-norm's blocks, row-norm's rows: the methods'
// ranksWholeTensor) chooses over every row of an element, read a block of rows at a time, so that
// a window of its rows is masked exactly as sparsify masks those rows of the whole element: the
// desktop app's preview of a table it loads a window of rows at a time (docs/KNOWN_LIMITS.md).
// What does not depend on the level is kept (the block scores, the row norms), so a change of
// the level chooses again without reading the table.
#include "core/io/h5_handle.h"
#include "core/sparsify/sparsifier_config.h"
#include "core/tensor/row_range.h"
#include "core/tensor/tensor.h"
#include "core/util/progress.h"

#include <string>
#include <variant>
#include <vector>

namespace sparsity::core {

class WholeTensorChoice {
public:
    // The most the kept scores or norms may take: a larger table is refused (InputError).
    static constexpr std::int64_t kMaxKeptBytes = std::int64_t{256} << 20;

    // Reads every row of the element at `path`, unmasked and read by rows (rowReadOf: dense,
    // csr, row_sparse, a coo whose rows ascend), as computeMask would see it whole,
    // for `config`, a data-norm or row-norm recipe: its checks' errors are computeMask's.
    // `progress` counts rows read; it may cancel (Cancelled).
    // `readBytes`: about how many bytes of rows each read takes, at least one data-norm band
    // (tests make it small).
    WholeTensorChoice(const H5File &file,
                      std::string path,
                      const SparsifierConfig &config,
                      const ProgressCallback &progress = {},
                      std::int64_t readBytes = std::int64_t{32} << 20);

    // Whether it serves `config`: sameChoice as the config it was made for.
    bool serves(const SparsifierConfig &config) const { return sameChoice(config, m_config); }
    // Whether one choice serves both: the same method and, for data-norm, the same blocks and
    // norm (the level, the zeros per block and row-norm's keep fraction are chosen per mask).
    static bool sameChoice(const SparsifierConfig &a, const SparsifierConfig &b);
    // The mask of rows `rows` under `config` (which it serves): rows [begin, end) of
    // computeMask(whole element, config), bit for bit. Reads those rows again (with the
    // neighbours a data-norm block of theirs spans).
    Mask maskOfRows(const H5File &file, RowRange rows, const SparsifierConfig &config) const;

private:
    std::string m_path;
    SparsifierConfig m_config; // as read: method, blocks, norm
    Shape m_shape;
    std::int64_t m_rowWidth = 0;
    // data-norm's 2-d view of the element (dataNormView): `m_viewRowsPerRow` view rows per row,
    // or 0 when the view is one row of the element's values (a 1-d table) or has no rows (a dim
    // of size 0: then m_rowWidth is 0 too, and nothing is ranked).
    std::int64_t m_viewWidth = 0, m_viewRowsPerRow = 0;
    std::variant<std::vector<float>, std::vector<double>> m_scores; // data-norm: every block's
    std::vector<double> m_norms;                                    // row-norm: every row's
};

} // namespace sparsity::core
