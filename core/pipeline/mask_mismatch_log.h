#pragma once
// The masks that differ in a streamed evaluation, reported as the whole evaluation reports them.
//
// Under the strict mask policy an elementwise op whose masked operands' masks differ fails. The
// whole evaluation fails at the first such op in evaluation order (operands before the op, left
// to right) and counts the differing elements over the whole tensors. A block of rows fails at
// its own first such op, counting its own rows. So a stream notes each block's failure and goes
// on: the op the whole evaluation meets first is the earliest any block met (every op before it
// passed in every block), and its difference is the sum of the blocks that failed there. An op
// of three masked operands (clamp) compares the first with each other in turn: a block fails at
// its first pair that differs, so (op, operand) is what is ordered.
#include "core/expr/mask_mismatch.h"
#include "core/parallel/rank_group.h"

#include <optional>
#include <vector>

namespace sparsity::core {

class MaskMismatchLog {
public:
    // `evaluated` is the expression the blocks evaluate (its ops are numbered in evaluation
    // order), part of the one written as `source`.
    MaskMismatchLog(const Expression &evaluated, std::string_view source);
    // A block starting at row `firstRow` failed with `mismatch`. Blocks are noted in row order.
    void note(const MaskMismatch &mismatch, std::int64_t firstRow);
    // Collective: when a block of any rank failed, every rank throws the whole tensors' error
    // (`rows` of them), as the whole evaluation words it. Ranks hold ascending ranges of rows.
    void raiseAcrossRanks(const RankGroup &group, std::int64_t rows) const;

private:
    struct Failure {
        int order = 0;             // of the op, in evaluation order
        int operand = 0;           // compared with the op's first masked operand
        std::string what;          // the op, as its message names it
        Shape shape;               // a block's shape of the operands: dim 0 is rows
        MaskDifference difference; // over every block noted that failed at this op
    };
    static std::string serialized(const std::optional<Failure> &failure);
    static std::optional<Failure> deserialized(const std::string &bytes);
    // Adds `failure` (of rows after those of `first`'s) to `first`, the earliest failure so far.
    static void merge(std::optional<Failure> &first, const Failure &failure, std::int64_t offset);

    std::vector<const Expression *> m_ops; // in evaluation order
    std::string m_source;
    std::optional<Failure> m_first;
};

} // namespace sparsity::core
