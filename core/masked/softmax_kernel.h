#pragma once
// softmax / log_softmax along one dim. Masked and Sparse values follow torch.masked and
// torch.sparse.softmax: unspecified elements count as -inf (they take no share), the result
// keeps the input's mask, and a lane with nothing specified is unspecified throughout.
#include "core/masked/masked_value.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace sparsity::core {

// Whether the expression language's function `name` is softmax or log_softmax.
inline bool softmaxNamed(std::string_view name) { return name == "softmax" || name == "log_softmax"; }

// A softmax computed before: `input` and its `result`. A lane of a new input equal to the
// same lane of `input`, values and mask bit for bit, takes `result`'s lane instead of being
// computed again. A lane's result depends on its own elements alone, wherever it lies, so no
// bit changes; gradcheck's perturbed evaluations change a few lanes of many.
template <class T>
struct SoftmaxBaseline {
    const MaskedValue<T> &input;
    const MaskedValue<T> &result;
};

template <class T>
MaskedValue<T> softmax(const MaskedValue<T> &input, int dim, bool logarithm, const SoftmaxBaseline<T> *baseline = nullptr);

// softmax / log_softmax over dim 0 of a tensor of more than one dim, folded a block of rows at
// a time (eval streams it): each column's maximum, then its total, both in row order over the
// specified elements, then each block's result. The arithmetic is softmax()'s over that dim (a
// strided lane, in double), element for element, so the result is the whole tensor's.
template <class T>
class ColumnSoftmax {
public:
    explicit ColumnSoftmax(std::int64_t columns);
    // Pass 1, then pass 2, over every row in order; `rows` holds `count` rows of `columns`
    // values, `mask` (null: every one specified) their mask bytes.
    void foldMaximum(const T *rows, const std::uint8_t *mask, std::int64_t count);
    void foldTotal(const T *rows, const std::uint8_t *mask, std::int64_t count);
    // Pass 3: the result of `count` rows (0 where unspecified).
    void apply(const T *rows, const std::uint8_t *mask, std::int64_t count, bool logarithm, T *out) const;
    // Pass 3 on a block of rows as a value: its result, keeping its mask (as softmax() does).
    MaskedValue<T> applied(const MaskedValue<T> &rows, bool logarithm) const;
    std::int64_t columns() const { return m_columns; }

    // Each column's maximum and total, to be handed to ranks that did not fold them.
    std::vector<double> &maximum() { return m_maximum; }
    std::vector<double> &total() { return m_total; }

private:
    std::int64_t m_columns;
    std::vector<double> m_maximum, m_total;
};

} // namespace sparsity::core
