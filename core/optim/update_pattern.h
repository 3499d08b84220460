#pragma once
// Which elements one optimizer step touches, and with which gradient values: the semantics
// made concrete (docs/SEMANTICS.md, "Which elements a step touches").
//   dense  — All: every element, unstored gradient entries are 0;
//   lazy   — exactly the gradient's stored pattern, duplicates summed: Rows for row_sparse,
//            hybrid COO with one sparse dim and dense gradients (all-zero rows dropped),
//            Elements for element-wise COO/CSR/CSC and masked gradients;
//   masked — Elements: exactly the mask (--mask, else the gradient's own mask, else the
//            stored pattern of a sparse gradient), a specified zero included, a stored value
//            outside the mask ignored.
// Built from the gradient alone: no allocation proportional to the parameter, except the
// dense semantics' full gradient.
#include "core/optim/optimizer_options.h"
#include "core/tensor/row_range.h"
#include "core/tensor/tensor.h"

#include <span>
#include <vector>

namespace sparsity::core {

template <class T>
struct UpdatePattern {
    enum class Kind { All, Rows, Elements };
    Kind kind = Kind::All;
    std::int64_t rowWidth = 1;     // elements per row of the parameter
    std::int64_t firstRow = 0;     // the parameter row that row 0 here is (a block's pattern)
    Buffer<std::int64_t> rows;     // Rows: sorted unique row numbers
    Buffer<std::int64_t> elements; // Elements: sorted unique linear indices
    // Gradient values: All: numel; Rows: rows x rowWidth; Elements: one each. A view of
    // `owned`, or of the gradient tensor itself when it is dense in T (no copy per step).
    std::span<const T> values;
    Buffer<T> owned;

    // Move-only: `values` may point into `owned`, and a moved vector keeps its storage.
    UpdatePattern() = default;
    UpdatePattern(UpdatePattern &&) noexcept = default;
    UpdatePattern &operator=(UpdatePattern &&) noexcept = default;
    UpdatePattern(const UpdatePattern &) = delete;
    UpdatePattern &operator=(const UpdatePattern &) = delete;

    void own(Buffer<T> buffer)
    {
        owned = std::move(buffer);
        values = owned;
    }
    std::int64_t touchedElements() const { return static_cast<std::int64_t>(values.size()); }
};

// `mask` is an explicit --mask (one byte per element of a dense bool tensor) or null. The
// pattern may view `grad`'s values: keep `grad` alive while the pattern is used.
// Throws InputError when the masked semantics has no mask to use.
template <class T>
UpdatePattern<T> buildUpdatePattern(const Tensor &grad, Semantics semantics, const Tensor *mask);

// What the semantics that touch more than a gradient stores fill their patterns from, coalesced
// once: for the dense semantics, the stored rows of a row-granular gradient (as the lazy
// semantics takes them) or else its specified elements; for the masked one with a mask, its
// specified elements. Never larger than what the gradient stores.
template <class T>
UpdatePattern<T> fillSource(const Tensor &grad, Semantics semantics);

// What coalescing `grad` under `semantics` holds beside it, at most, with `valueSize`-byte
// values: its stored rows (8 bytes each) and values where the semantics takes whole rows of a
// row-granular gradient, else an 8-byte element index beside each specified value. For judging
// whether a gradient read whole can be coalesced within a budget before building its pattern.
std::int64_t coalescedBytes(const Tensor &grad, Semantics semantics, std::size_t valueSize);

// From a fillSource (or patternInRows of it, for a block of rows), that semantics' pattern over
// `count` elements: dense: All, 0 where nothing is stored; masked with `mask`: every element
// the mask holds, the gradient's value there or 0. buildUpdatePattern builds these so too, so
// a gradient read whole gives a block of rows what it gives the whole tensor's same rows.
// `recycled`, a pattern no longer used (the last step's), lends its buffers: a step of a block
// then writes memory already mapped instead of faulting in fresh pages.
template <class T>
UpdatePattern<T> filledPattern(
    const UpdatePattern<T> &source, Semantics semantics, const Tensor *mask, std::int64_t count, UpdatePattern<T> recycled = {});

// The part of `whole` (a pattern over every row of the parameter) in `rows`, numbered from
// rows.begin: what buildUpdatePattern gives for those rows of the gradient, without reading or
// coalescing it again. Its values view `whole`'s: keep `whole` alive while it is used.
template <class T>
UpdatePattern<T> patternInRows(const UpdatePattern<T> &whole, RowRange rows);

// PyTorch 1.13's SGD with a sparse gradient and momentum (docs/SEMANTICS.md, "SGD"): the buffer
// is itself sparse, its pattern the union of every row touched so far, so each row of that union
// moves (its buffer decaying) at every later step. True when `options` (torch rule, sgd, lazy,
// momentum) need that widening.
bool widensToTorchSparseSgd(const OptimizerOptions &options);
// The rows the momentum buffer holds, one flag per parameter row, read from a state's
// last_update (the buffer holds exactly the rows a step has written).
std::vector<char> rowsHeldByBuffer(std::span<const std::int64_t> lastUpdate);
// `step` (a lazy pattern) widened as above: Rows over `bufferRows` and the step's own rows, the
// gradient 0 where it stores nothing. Adds the step's rows to `bufferRows`.
template <class T>
UpdatePattern<T> torchSparseSgdPattern(UpdatePattern<T> step, std::vector<char> &bufferRows);

} // namespace sparsity::core
