#pragma once
// Reverse mode over a recorded evaluation (tape.h). Each op's backward states how it treats
// sparse and masked operands (docs/SEMANTICS.md, "gradcheck"):
//
//   non-masked  a gradient for every element, unspecified ones included (unstored = 0):
//               elementwise ops, reductions, softmax, mm, to_dense(x) and to_dense(x, 0),
//               to_sparse, data
//   masked      the gradient projected onto the operand's specified pattern:
//               both operands of sparse_mm (each onto its own pattern; a dense operand's
//               pattern is every element), sparse_mask's first, to_dense(x, 1)
//
// and a masked value's gradient stays masked: whatever flows into a Masked value is
// projected onto its mask (torch.masked: unspecified gradients stay unspecified). Inputs
// that are Sparse are not projected at the end: which paths reach their unspecified
// elements is exactly what gradcheck shows.
#include "core/autograd/tape.h"

#include <map>
#include <string>
#include <vector>

namespace sparsity::core {

// How the backward of `node` (a call or operator) treats the gradient of its operand `k`.
enum class GradientTreatment { NonMasked, Masked, PatternOnly };
GradientTreatment operandTreatment(const Expression &node, std::size_t k);

// Gradients of the recorded root with respect to every input name used, for `batch` root
// gradients at once (vector-Jacobian products): `rootGradients` is batch x (root elements),
// each result batch x (input elements), row-major. One batched pass costs about what one
// pass costs with its loops a batch longer, which is how gradcheck gets whole Jacobians.
std::map<std::string, std::vector<double>>
backward(const Expression &root, const Tape &tape, const std::vector<double> &rootGradients, std::int64_t batch = 1);

} // namespace sparsity::core
