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
    std::string_view source, const Expression &node, std::string what, MaskDifference difference, Shape shape)
    : InputError(mismatchText(source, node, what, difference, shape)), m_source(source), m_node(&node), m_what(std::move(what)),
      m_difference(difference), m_shape(std::move(shape))
{
}

MaskMismatch MaskMismatch::over(MaskDifference difference, Shape shape) const
{
    return MaskMismatch(m_source, *m_node, m_what, difference, std::move(shape));
}

} // namespace sparsity::core
