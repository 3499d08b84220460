#pragma once
// Tape: what a recorded forward evaluation keeps for reverse mode. Every node of the
// expression is materialised (nothing fused) in float64 and kept by its syntax-tree node;
// `order` lists the nodes as they finished, operands before the ops that use them.
#include "core/expr/expression.h"
#include "core/masked/masked_value.h"

#include <memory>
#include <unordered_map>
#include <vector>

namespace sparsity::core {

struct Tape {
    std::vector<const Expression *> order;
    std::unordered_map<const Expression *, std::shared_ptr<const MaskedValue<double>>> values;

    const MaskedValue<double> &valueOf(const Expression &node) const { return *values.at(&node); }
};

} // namespace sparsity::core
