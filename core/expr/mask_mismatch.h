#pragma once
// The error of an elementwise op whose masked operands' masks differ under the strict mask
// policy (torch.masked's rule). It keeps the op and the difference, not only the text, so a
// streamed evaluation (core/pipeline/eval_blocks.cpp), which meets the difference a block of
// rows at a time, can report it over the whole tensors, as the whole evaluation does.
#include "core/expr/expression.h"
#include "core/masked/mask_algebra.h"
#include "core/util/errors.h"

namespace sparsity::core {

class MaskMismatch : public InputError {
public:
    // `what` names the op as its messages do ("'+'", "maximum"); `operand` is the operand whose
    // mask differs from the first masked one's (an op of three operands compares them in turn);
    // `shape` is the operands'.
    MaskMismatch(
        std::string_view source, const Expression &node, std::string what, int operand, MaskDifference difference, Shape shape);

    // The op: valid while the expression it was thrown for lives (a stream catches it there).
    const Expression &node() const { return *m_node; }
    const std::string &op() const { return m_what; }
    int operand() const { return m_operand; }
    const MaskDifference &difference() const { return m_difference; }
    const Shape &shape() const { return m_shape; }

private:
    const Expression *m_node;
    std::string m_what;
    int m_operand;
    MaskDifference m_difference;
    Shape m_shape;
};

} // namespace sparsity::core
