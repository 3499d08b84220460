#include "core/expr/mask_mismatch.h"

namespace sparsity::core {
namespace {

std::string mismatchText(std::string_view source,
                         const Expression &node,
                         const std::string &what,
                         const MaskDifference &difference,
                         const Shape &shape)
{
    return expressionError(source, node.column,
                           "the masks of the operands of " + what + " differ: " + difference.describe(shape)
                               + "; use intersect(x, y) or the intersect mask policy to combine them")
        .what();
}

} // namespace

MaskMismatch::MaskMismatch(
    std::string_view source, const Expression &node, std::string what, int operand, MaskDifference difference, Shape shape)
    : InputError(mismatchText(source, node, what, difference, shape)), m_node(&node), m_what(std::move(what)), m_operand(operand),
      m_difference(difference), m_shape(std::move(shape))
{
}

} // namespace sparsity::core
