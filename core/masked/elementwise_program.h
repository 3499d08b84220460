#pragma once
// ElementwiseProgram<T>: a fused elementwise expression, e.g. sqrt(abs(x)) * x + 1.5, as a
// list of instructions over leaves (input arrays, or one value broadcast) and registers.
// Evaluation goes block by block (kBlock elements): each instruction runs as one tight loop
// over the block, and intermediate results live in per-thread scratch that stays in cache,
// so a whole expression costs one pass over its inputs instead of one pass per op.
// Reductions consume blocks directly (reduction_kernels.h), so `sum(f(x), 1)` never
// materialises f(x). The same program runs on the GPU (device/gpu_eval.h).
#include "core/masked/element_ops.h"

#include <array>
#include <cstdint>
#include <vector>

namespace sparsity::core {

inline constexpr int kBlock = 1024;
// Below this many elements a kernel runs on the calling thread: waking an OpenMP team costs
// more than the work (gradcheck evaluates small expressions thousands of times).
inline constexpr std::int64_t kParallelThreshold = 32768;

struct ProgramOperand {
    enum class Source : std::uint8_t { Leaf, Register };
    Source source = Source::Leaf;
    int index = 0;
};

struct Instruction {
    ElementOp op = ElementOp::Neg;
    std::array<ProgramOperand, 3> args{}; // the first elementOpArity(op) are used
};

template <class T>
struct ProgramLeaf {
    const T *data = nullptr; // numel elements, or one value when broadcast
    bool broadcast = false;
};

template <class T>
class ElementwiseProgram {
public:
    ProgramOperand addLeaf(const T *data, bool broadcast);
    ProgramOperand addInstruction(ElementOp op, const std::array<ProgramOperand, 3> &args);

    const std::vector<ProgramLeaf<T>> &leaves() const { return m_leaves; }
    const std::vector<Instruction> &instructions() const { return m_instructions; }
    ProgramOperand result() const { return m_result; }

    // Per-thread working memory for evaluateBlock.
    struct Scratch {
        std::vector<T> registers;
    };
    Scratch makeScratch() const;

    // Evaluates elements [begin, begin + count), count <= kBlock. Returns where the results
    // are: `destination` when given (it receives them), else scratch or the leaf itself.
    const T *evaluateBlock(std::int64_t begin, int count, Scratch &scratch, T *destination = nullptr) const;

    // Evaluates all `numel` elements into `out`, in parallel.
    void evaluateAll(std::int64_t numel, T *out) const;

private:
    const T *operandBlock(ProgramOperand operand, std::int64_t begin, const Scratch &scratch) const;

    std::vector<ProgramLeaf<T>> m_leaves;
    std::vector<std::vector<T>> m_broadcastBlocks; // per leaf: kBlock copies when broadcast
    std::vector<Instruction> m_instructions;
    ProgramOperand m_result;
};

} // namespace sparsity::core
