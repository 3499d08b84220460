#include "core/masked/elementwise_program.h"

#include "core/util/cpu_clones.h"

#include <Eigen/Core>
#include <algorithm>
#include <cstring>

namespace sparsity::core {
namespace {

// `f` (Eigen's packet exp or log) over n values, every one in a packet. Over a map Eigen
// computes an unaligned head and the tail with libm, whose last bits differ from the packets':
// an element's result would then depend on where it lies in its block, and a streamed
// evaluation's blocks lie elsewhere than the whole tensor's. The last, partial packet is
// padded with ones.
template <class T, class F>
SPARSITY_ALWAYS_INLINE void inPackets(const T *a, T *out, int n, F &&f)
{
    using Packet = typename Eigen::internal::packet_traits<T>::type;
    constexpr int kSize = Eigen::internal::unpacket_traits<Packet>::size;
    int i = 0;
    for (; i + kSize <= n; i += kSize)
        Eigen::internal::pstoreu(out + i, f(Eigen::internal::ploadu<Packet>(a + i)));
    if (i == n)
        return;
    T in[kSize], result[kSize];
    std::fill(in, in + kSize, T(1));
    std::memcpy(in, a + i, static_cast<std::size_t>(n - i) * sizeof(T));
    Eigen::internal::pstoreu(result, f(Eigen::internal::ploadu<Packet>(in)));
    std::memcpy(out + i, result, static_cast<std::size_t>(n - i) * sizeof(T));
}

// One instruction over one block. The switch sits outside the loops so each loop is a plain
// vectorisable kernel (sqrt vectorises because the core builds with -fno-math-errno; it and
// the arithmetic are correctly rounded either way); exp and log use Eigen's vectorised
// polynomial forms (within an ulp or two of libm, which is float rounding), since libm has no
// vector entry points without -ffast-math.
template <class T>
SPARSITY_ALWAYS_INLINE void runInstructionLoops(ElementOp op, const T *a, const T *b, const T *c, T *out, int n)
{
    switch (op) {
#define SPARSITY_BLOCK_LOOP(expr)                                                                                                \
    _Pragma("omp simd") for (int i = 0; i < n; ++i) out[i] = (expr);                                                             \
    return;
    case ElementOp::Neg:
        SPARSITY_BLOCK_LOOP(-a[i])
    case ElementOp::Abs:
        SPARSITY_BLOCK_LOOP(std::abs(a[i]))
    case ElementOp::Sqrt:
        SPARSITY_BLOCK_LOOP(std::sqrt(a[i]))
    case ElementOp::Rsqrt:
        SPARSITY_BLOCK_LOOP(T(1) / std::sqrt(a[i]))
    case ElementOp::Square:
        SPARSITY_BLOCK_LOOP(a[i] * a[i])
    case ElementOp::Sign:
        SPARSITY_BLOCK_LOOP(applyElementOp(ElementOp::Sign, a[i], T(0), T(0)))
    case ElementOp::Add:
        SPARSITY_BLOCK_LOOP(a[i] + b[i])
    case ElementOp::Sub:
        SPARSITY_BLOCK_LOOP(a[i] - b[i])
    case ElementOp::Mul:
        SPARSITY_BLOCK_LOOP(a[i] * b[i])
    case ElementOp::Div:
        SPARSITY_BLOCK_LOOP(a[i] / b[i])
    case ElementOp::Maximum:
        SPARSITY_BLOCK_LOOP(maximumOf(a[i], b[i]))
    case ElementOp::Minimum:
        SPARSITY_BLOCK_LOOP(minimumOf(a[i], b[i]))
    case ElementOp::Clamp:
        SPARSITY_BLOCK_LOOP(minimumOf(maximumOf(a[i], b[i]), c[i]))
    case ElementOp::Where:
        SPARSITY_BLOCK_LOOP(a[i] != T(0) ? b[i] : c[i])
#undef SPARSITY_BLOCK_LOOP
    case ElementOp::Exp:
        inPackets(a, out, n, [](const auto &x) { return Eigen::internal::pexp(x); });
        return;
    case ElementOp::Log:
        inPackets(a, out, n, [](const auto &x) { return Eigen::internal::plog(x); });
        return;
    case ElementOp::Pow:
        for (int i = 0; i < n; ++i)
            out[i] = std::pow(a[i], b[i]);
        return;
    }
}

SPARSITY_CPU_CLONES void runInstruction(ElementOp op, const float *a, const float *b, const float *c, float *out, int n)
{
    runInstructionLoops(op, a, b, c, out, n);
}

SPARSITY_CPU_CLONES void runInstruction(ElementOp op, const double *a, const double *b, const double *c, double *out, int n)
{
    runInstructionLoops(op, a, b, c, out, n);
}

} // namespace

std::optional<ElementOp> elementOpNamed(std::string_view name)
{
    static constexpr std::pair<std::string_view, ElementOp> kNames[] = {
        {"neg", ElementOp::Neg},         {"abs", ElementOp::Abs},         {"sqrt", ElementOp::Sqrt}, {"rsqrt", ElementOp::Rsqrt},
        {"square", ElementOp::Square},   {"exp", ElementOp::Exp},         {"log", ElementOp::Log},   {"sign", ElementOp::Sign},
        {"add", ElementOp::Add},         {"+", ElementOp::Add},           {"sub", ElementOp::Sub},   {"-", ElementOp::Sub},
        {"mul", ElementOp::Mul},         {"*", ElementOp::Mul},           {"div", ElementOp::Div},   {"/", ElementOp::Div},
        {"maximum", ElementOp::Maximum}, {"minimum", ElementOp::Minimum}, {"pow", ElementOp::Pow},   {"clamp", ElementOp::Clamp},
        {"where", ElementOp::Where},
    };
    for (const auto &[n, op] : kNames)
        if (n == name)
            return op;
    return std::nullopt;
}

template <class T>
ProgramOperand ElementwiseProgram<T>::addLeaf(const T *data, bool broadcast)
{
    m_leaves.push_back({data, broadcast});
    m_broadcastBlocks.emplace_back();
    if (broadcast)
        m_broadcastBlocks.back().assign(kBlock, *data);
    m_result = {ProgramOperand::Source::Leaf, static_cast<int>(m_leaves.size()) - 1};
    return m_result;
}

template <class T>
ProgramOperand ElementwiseProgram<T>::addInstruction(ElementOp op, const std::array<ProgramOperand, 3> &args)
{
    m_instructions.push_back({op, args});
    m_result = {ProgramOperand::Source::Register, static_cast<int>(m_instructions.size()) - 1};
    return m_result;
}

template <class T>
typename ElementwiseProgram<T>::Scratch ElementwiseProgram<T>::makeScratch() const
{
    return Scratch{std::vector<T>(m_instructions.size() * kBlock)};
}

template <class T>
const T *ElementwiseProgram<T>::operandBlock(ProgramOperand operand, std::int64_t begin, const Scratch &scratch) const
{
    const auto index = static_cast<std::size_t>(operand.index);
    if (operand.source == ProgramOperand::Source::Register)
        return scratch.registers.data() + index * kBlock;
    if (m_leaves[index].broadcast)
        return m_broadcastBlocks[index].data();
    return m_leaves[index].data + begin;
}

template <class T>
const T *ElementwiseProgram<T>::evaluateBlock(std::int64_t begin, int count, Scratch &scratch, T *destination) const
{
    if (m_instructions.empty()) {
        const T *leaf = operandBlock(m_result, begin, scratch);
        if (!destination)
            return leaf;
        std::memcpy(destination, leaf, static_cast<std::size_t>(count) * sizeof(T));
        return destination;
    }
    const std::size_t last = m_instructions.size() - 1;
    for (std::size_t i = 0; i <= last; ++i) {
        const auto &instruction = m_instructions[i];
        const int arity = elementOpArity(instruction.op);
        const T *a = operandBlock(instruction.args[0], begin, scratch);
        const T *b = arity > 1 ? operandBlock(instruction.args[1], begin, scratch) : nullptr;
        const T *c = arity > 2 ? operandBlock(instruction.args[2], begin, scratch) : nullptr;
        T *out = (i == last && destination) ? destination : scratch.registers.data() + i * kBlock;
        runInstruction(instruction.op, a, b, c, out, count);
    }
    return destination ? destination : scratch.registers.data() + last * kBlock;
}

template <class T>
void ElementwiseProgram<T>::evaluateAll(std::int64_t numel, T *out) const
{
    const std::int64_t blocks = (numel + kBlock - 1) / kBlock;
    if (numel < kParallelThreshold) { // no OpenMP call at all for small work
        auto scratch = makeScratch();
        for (std::int64_t block = 0; block < blocks; ++block) {
            const std::int64_t begin = block * kBlock;
            evaluateBlock(begin, static_cast<int>(std::min<std::int64_t>(kBlock, numel - begin)), scratch, out + begin);
        }
        return;
    }
#pragma omp parallel
    {
        auto scratch = makeScratch();
#pragma omp for schedule(static)
        for (std::int64_t block = 0; block < blocks; ++block) {
            const std::int64_t begin = block * kBlock;
            const int count = static_cast<int>(std::min<std::int64_t>(kBlock, numel - begin));
            evaluateBlock(begin, count, scratch, out + begin);
        }
    }
}

template class ElementwiseProgram<float>;
template class ElementwiseProgram<double>;

} // namespace sparsity::core
