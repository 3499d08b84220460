#pragma once
// Reductions (sum, mean, amax, amin, norm) over all dims or one dim, fed block by block by an
// ElementwiseProgram so the reduced expression is never materialised.
//
// Masked semantics (torch.masked): only specified elements take part; a result element is
// specified where at least one reduced element was, and unspecified where none was. Plain
// semantics reduce every element. Sums accumulate in double whatever T is (more accurate
// than torch's float accumulation; agreement is within float rounding of the result).
#include "core/masked/elementwise_program.h"
#include "core/masked/masked_value.h"

#include <optional>
#include <string_view>

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

// Reduces the `shape`-shaped values `program` computes. `mask` (dense, may be null) makes it a
// masked reduction. `dim` (already wrapped to [0, rank)) or all dims when nullopt. Throws
// InputError for amax/amin over zero plain elements (they have no identity).
template <class T>
MaskedValue<T>
reduce(const ElementwiseProgram<T> &program, const Shape &shape, const Mask *mask, ReduceOp op, std::optional<int> dim);

} // namespace sparsity::core
