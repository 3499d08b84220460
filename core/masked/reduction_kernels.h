#pragma once
// Reductions (sum, mean, amax, amin, norm) over all dims or one dim, fed block by block by an
// ElementwiseProgram so the reduced expression is never materialised.
//
// Masked semantics (torch.masked): only specified elements take part; a result element is
// specified where at least one reduced element was, and unspecified where none was. Plain
// semantics reduce every element. Sums accumulate in double whatever T is (more accurate
// than torch's float accumulation; agreement is within float rounding of the result).
//
// The summation order is fixed by the shape alone (docs/SEMANTICS.md, "Masked tensors"): each
// output element folds, in order, the partial results of fixed tiles of its elements. So a
// result is the same bit for bit whatever the number of threads, whichever blocks of rows a
// stream feeds (RowReduction), and however many ranks share the rows.
#include "core/masked/elementwise_program.h"
#include "core/masked/masked_value.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparsity::core {

enum class ReduceOp { Sum, Mean, Amax, Amin, Norm };

std::optional<ReduceOp> reduceOpNamed(std::string_view name);

// One output from its accumulator (sum, sum of squares or extreme) and the number of elements
// it took: mean divides (NaN over none), norm takes the square root.
double finishedValue(ReduceOp op, double accumulator, std::int64_t count);

// The [outer, reduced, inner] view of `shape` for a reduction over `dim` (all dims: nullopt),
// and the result's shape.
struct ReductionGeometry {
    std::int64_t outer = 1, reduced = 0, inner = 1;
    Shape resultShape;
};
ReductionGeometry reductionGeometry(const Shape &shape, std::optional<int> dim);

// Elements per tile: a tile is whole runs of `inner` reduced elements (at least one run).
inline constexpr std::int64_t kReductionTile = 65536;

// Rows of dim 0 per tile in a reduction over dim 0 or over all dims: the rows a stream's blocks
// must be whole multiples of. 1 when a row holds at least a tile (a reduction over all dims
// then splits each row into tiles; over dim 0 a tile is one row).
std::int64_t reductionTileRows(const Shape &shape);

// Running state of `inner` independent reductions (one per output element of a slab): the
// fold so far, or one tile's partial result.
struct ReductionAccumulators {
    std::vector<double> value;
    std::vector<std::int64_t> count; // elements taken

    ReductionAccumulators(std::int64_t inner, ReduceOp op);
    void reset(ReduceOp op);
    // Folds `next` (the following tile's partial) into this one.
    void fold(ReduceOp op, const ReductionAccumulators &next);
    // As bytes, for sending to another rank, and back.
    std::string serialized() const;
    static std::vector<ReductionAccumulators> deserialized(const std::string &bytes, std::int64_t inner, ReduceOp op);
};

// A reduction over dim 0 or over all dims fed a block of rows at a time, in row order: bit for
// bit what reduce() gives the whole tensor, provided every block but the last is a whole
// multiple of reductionTileRows(shape) rows. Across ranks each rank keeps its tiles' partial
// results (KeepTiles) for one rank to fold in rank order.
template <class T>
class RowReduction {
public:
    enum class Mode { Fold, KeepTiles };
    // `dim` is nullopt (all dims) or 0; `shape` is the whole tensor's.
    RowReduction(ReduceOp op, const Shape &shape, std::optional<int> dim, Mode mode = Mode::Fold);
    // The next `rows` rows: `program` computes their elements (block-relative), `mask` (the
    // block's, may be null) makes it masked.
    void add(const ElementwiseProgram<T> &program, std::int64_t rows, const Mask *mask = nullptr);
    // KeepTiles: the tiles' partials so far, in order, as bytes; foldTiles() takes them
    // (another rank's) into a Fold reduction.
    std::string keptTiles() const;
    void foldTiles(const std::string &bytes);
    // The result (Fold mode). Throws InputError for amax/amin over zero plain elements.
    MaskedValue<T> finish() const;

private:
    ReduceOp m_op;
    Shape m_shape;
    std::optional<int> m_dim;
    Mode m_mode;
    bool m_masked = false;
    std::int64_t m_inner = 1;
    ReductionAccumulators m_running;
    std::vector<ReductionAccumulators> m_tiles;
};

// Reduces the `shape`-shaped values `program` computes. `mask` (dense, may be null) makes it a
// masked reduction. `dim` (already wrapped to [0, rank)) or all dims when nullopt. Throws
// InputError for amax/amin over zero plain elements (they have no identity).
template <class T>
MaskedValue<T>
reduce(const ElementwiseProgram<T> &program, const Shape &shape, const Mask *mask, ReduceOp op, std::optional<int> dim);

} // namespace sparsity::core
