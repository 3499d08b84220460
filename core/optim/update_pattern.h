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
#include "core/tensor/tensor.h"

#include <span>

namespace sparsity::core {

template <class T>
struct UpdatePattern {
    enum class Kind { All, Rows, Elements };
    Kind kind = Kind::All;
    std::int64_t rowWidth = 1;     // elements per row of the parameter
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

} // namespace sparsity::core
