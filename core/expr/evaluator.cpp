#include "core/expr/evaluator.h"

#include "core/device/gpu_eval.h"
#include "core/expr/mask_mismatch.h"
#include "core/masked/elementwise_program.h"
#include "core/masked/mask_algebra.h"
#include "core/masked/masked_print.h"
#include "core/masked/matmul_kernels.h"
#include "core/masked/reduction_kernels.h"
#include "core/masked/softmax_kernel.h"
#include "core/util/errors.h"

#include <algorithm>
#include <map>
#include <optional>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

template <class T>
using ValuePtr = std::shared_ptr<const MaskedValue<T>>;

// A node of a fused elementwise expression: an op over terms, or a leaf value.
template <class T>
struct Term {
    ElementOp op = ElementOp::Neg;
    std::vector<std::shared_ptr<const Term>> args;
    ValuePtr<T> leaf;
};

// What evaluating a node gives: its metadata now, its values when someone asks (`term`).
template <class T>
struct Lazy {
    Shape shape;
    ValueKind kind = ValueKind::Plain;
    Layout storage = Layout::Dense;
    bool isBool = false;
    SharedMask mask;
    std::shared_ptr<const Term<T>> term;

    bool isScalar() const { return shape.empty(); }
};

template <class T>
Lazy<T> lazyOf(ValuePtr<T> value)
{
    Lazy<T> lazy{value->shape, value->kind, value->storage, value->isBool, value->mask, nullptr};
    auto term = std::make_shared<Term<T>>();
    term->leaf = std::move(value);
    lazy.term = std::move(term);
    return lazy;
}

template <class T>
ProgramOperand compile(const Term<T> &term, std::int64_t numel, ElementwiseProgram<T> &program)
{
    if (term.leaf)
        return program.addLeaf(term.leaf->values.data(), term.leaf->numel() == 1 && numel != 1);
    std::array<ProgramOperand, 3> args{};
    for (std::size_t i = 0; i < term.args.size(); ++i)
        args[i] = compile(*term.args[i], numel, program);
    return program.addInstruction(term.op, args);
}

template <class T>
ElementwiseProgram<T> compile(const Lazy<T> &lazy)
{
    ElementwiseProgram<T> program;
    compile(*lazy.term, numel(lazy.shape), program);
    return program;
}

// An input in the compute type: shared when it already is, converted otherwise.
template <class T, class U>
ValuePtr<T> as(const std::shared_ptr<const MaskedValue<U>> &value)
{
    if constexpr (std::is_same_v<T, U>) {
        return value;
    } else {
        auto converted = std::make_shared<MaskedValue<T>>();
        converted->shape = value->shape;
        converted->values.assign(value->values.begin(), value->values.end());
        converted->mask = value->mask;
        converted->kind = value->kind;
        converted->storage = value->storage;
        converted->isBool = value->isBool;
        return converted;
    }
}

template <class T>
class Evaluator {
public:
    Evaluator(std::string_view source,
              const std::vector<EvalInput> &inputs,
              MaskPolicy policy,
              Device device,
              Tape *tape = nullptr,
              const Tape *baseline = nullptr,
              const FoldedSoftmaxes *folded = nullptr)
        : m_source(source), m_policy(policy), m_device(device), m_tape(tape), m_baseline(baseline), m_folded(folded)
    {
        for (const auto &input : inputs)
            m_inputs.emplace(input.name, std::visit([](const auto &value) { return as<T>(value); }, input.value));
    }

    MaskedValue<T> run(const Expression &root)
    {
        auto value = materialise(evaluate(root));
        // A result this evaluation created is owned here alone and moves out; an input
        // returned as is (the expression `x`) is shared with the caller and copied. Every
        // value this class creates is created non-const, so the cast is sound.
        if (value.use_count() == 1)
            return std::move(*std::const_pointer_cast<MaskedValue<T>>(value));
        return *value;
    }

    // `root`'s values as one fused program over the inputs' elements, and their mask.
    template <class Take>
    void compiled(const Expression &root, Take &&take)
    {
        const Lazy<T> lazy = evaluate(root);
        take(compile(lazy), lazy.mask.get());
    }

private:
    [[noreturn]] void fail(const Expression &node, const std::string &what) const
    {
        throw expressionError(m_source, node.column, what);
    }

    ValuePtr<T> materialise(const Lazy<T> &lazy) const
    {
        const auto &leaf = lazy.term->leaf;
        if (leaf && leaf->shape == lazy.shape && leaf->mask == lazy.mask && leaf->kind == lazy.kind
            && leaf->storage == lazy.storage)
            return leaf;
        auto value = std::make_shared<MaskedValue<T>>();
        value->shape = lazy.shape;
        value->kind = lazy.kind;
        value->storage = lazy.storage;
        value->mask = lazy.mask;
        value->values.resize(at(numel(lazy.shape)));
        const auto program = compile(lazy);
        if (m_device == Device::Cuda)
            evaluateOnGpu(program, numel(lazy.shape), value->values.data());
        else
            program.evaluateAll(numel(lazy.shape), value->values.data());
        return value;
    }

    // With a tape, every node is materialised and recorded, and its users read the recorded
    // value (so nothing is fused and nothing is computed twice).
    Lazy<T> evaluate(const Expression &node)
    {
        Lazy<T> result = evaluateNode(node);
        if constexpr (std::is_same_v<T, double>) {
            if (m_tape) {
                auto value = materialise(result);
                result.term = lazyOf<T>(value).term;
                m_tape->order.push_back(&node);
                m_tape->values[&node] = std::move(value);
            }
        }
        return result;
    }

    Lazy<T> evaluateNode(const Expression &node)
    {
        switch (node.kind) {
        case Expression::Kind::Number: {
            auto value = std::make_shared<MaskedValue<T>>();
            value->values.assign(1, static_cast<T>(node.number));
            return lazyOf<T>(value);
        }
        case Expression::Kind::Name:
            return lazyOf<T>(input(node));
        case Expression::Kind::Negate:
            return elementwise(node, ElementOp::Neg, {evaluate(*node.operands[0])}, "-");
        case Expression::Kind::Binary: {
            const char symbol[2] = {node.op, 0};
            return elementwise(node, *elementOpNamed(symbol), {evaluate(*node.operands[0]), evaluate(*node.operands[1])},
                               std::string("'") + symbol + "'");
        }
        case Expression::Kind::Call:
            return call(node);
        }
        fail(node, "unsupported expression");
    }

    ValuePtr<T> input(const Expression &node) const
    {
        const auto found = m_inputs.find(node.name);
        if (found != m_inputs.end())
            return found->second;
        std::string known;
        for (const auto &[name, value] : m_inputs)
            known += (known.empty() ? "" : ", ") + name;
        fail(node, "unknown input '" + node.name + "' (inputs: " + (known.empty() ? "none" : known) + ")");
    }

    // The recorded evaluation's operand and result of the softmax `node`, when there is one.
    std::optional<SoftmaxBaseline<T>> softmaxBaseline(const Expression &node) const
    {
        if constexpr (std::is_same_v<T, double>) {
            if (m_baseline) {
                const auto operand = m_baseline->values.find(node.operands[0].get());
                const auto result = m_baseline->values.find(&node);
                if (operand != m_baseline->values.end() && result != m_baseline->values.end())
                    return SoftmaxBaseline<T>{*operand->second, *result->second};
            }
        }
        return std::nullopt;
    }

    // The folded columns of the softmax `node`, when it is one of m_folded's.
    const ColumnSoftmax<T> *foldedColumns(const Expression &node) const
    {
        if (!m_folded)
            return nullptr;
        const auto &columns = m_folded->of<T>();
        const auto found = columns.find(&node);
        return found == columns.end() ? nullptr : found->second;
    }

    Lazy<T> call(const Expression &node)
    {
        const std::string &f = node.name;
        if (const auto op = elementOpNamed(f)) {
            std::vector<Lazy<T>> args;
            for (const auto &operand : node.operands)
                args.push_back(evaluate(*operand));
            return elementwise(node, *op, std::move(args), f);
        }
        if (const auto op = reduceOpNamed(f))
            return reduction(node, *op);
        if (softmaxNamed(f)) {
            const auto x = materialise(evaluate(*node.operands[0]));
            if (const auto *columns = foldedColumns(node)) {
                if (x->shape.size() < 2 || numel(x->shape, 1, x->shape.size()) != columns->columns())
                    throw InternalError("eval: a folded softmax's rows are not its columns'");
                return lazyOf<T>(std::make_shared<MaskedValue<T>>(columns->applied(*x, f == "log_softmax")));
            }
            const auto baseline = softmaxBaseline(node);
            return lazyOf<T>(std::make_shared<MaskedValue<T>>(
                softmax(*x, dimArgument(node, 1, x->shape), f == "log_softmax", baseline ? &*baseline : nullptr)));
        }
        if (f == "mm" || f == "sparse_mm") {
            const auto a = materialise(evaluate(*node.operands[0]));
            const auto b = materialise(evaluate(*node.operands[1]));
            try {
                return lazyOf<T>(std::make_shared<MaskedValue<T>>(matmul(*a, *b, f == "sparse_mm")));
            } catch (const InputError &error) {
                fail(node, f + ": " + error.what());
            }
        }
        if (f == "sparse_mask")
            return sparseMask(node);
        if (f == "to_dense")
            return toDense(node);
        if (f == "to_sparse")
            return toSparse(node);
        if (f == "data") {
            auto x = evaluate(*node.operands[0]);
            x.kind = ValueKind::Plain;
            x.mask = nullptr;
            x.storage = Layout::Dense;
            x.term = materialisedAs(x);
            return x;
        }
        if (f == "masked" || f == "intersect")
            return withMask(node);
        fail(node, "function '" + f + "' is not implemented by the evaluator");
    }

    // A leaf term holding `lazy`'s values; materialise() gives a value with `lazy`'s metadata.
    std::shared_ptr<const Term<T>> materialisedAs(const Lazy<T> &lazy) const { return lazyOf<T>(materialise(lazy)).term; }

    // ---- elementwise ops: fused, masks decided now ------------------------------------------

    Lazy<T> elementwise(const Expression &node, ElementOp op, std::vector<Lazy<T>> args, const std::string &what)
    {
        Lazy<T> out;
        for (const auto &arg : args)
            if (!arg.isScalar()) {
                if (!out.shape.empty() && arg.shape != out.shape)
                    fail(node, "shape mismatch in " + what + ": " + shapeToString(out.shape) + " and " + shapeToString(arg.shape)
                                   + " (operands must have equal shapes, or be scalars)");
                out.shape = arg.shape;
            }
        const std::size_t size = at(numel(out.shape));
        const std::size_t firstValue = op == ElementOp::Where ? 1 : 0; // where's condition has no mask role
        if (op == ElementOp::Where && args[0].kind == ValueKind::Masked)
            fail(node, "where: the condition must be a plain (unmasked) tensor");

        // The masks of the masked operands, broadcast to the result's size. A masked scalar
        // (a 0-d reduction result) broadcast over a tensor acts as a scalar: specified, it
        // leaves the other masks alone; unspecified, it makes every element unspecified.
        std::vector<SharedMask> masks(args.size());
        bool scalarsSpecified = true, tensorMasks = false;
        for (std::size_t i = firstValue; i < args.size(); ++i) {
            if (args[i].kind != ValueKind::Masked)
                continue;
            if (args[i].mask->size() == size) {
                masks[i] = args[i].mask;
                tensorMasks = true;
            } else {
                scalarsSpecified = scalarsSpecified && (*args[i].mask)[0] != 0;
                if (op == ElementOp::Where)
                    masks[i] = filledMask(size, (*args[i].mask)[0] != 0);
            }
            if (out.kind != ValueKind::Masked)
                out.storage = args[i].storage;
            out.kind = ValueKind::Masked;
        }
        if (out.kind == ValueKind::Masked) {
            if (op == ElementOp::Where) {
                const auto condition = materialise(args[0]);
                args[0] = lazyOf<T>(condition);
                out.mask = whereMask(condition->values, masks[1].get(), masks[2].get(), size);
            } else if (!scalarsSpecified || !tensorMasks) {
                out.mask = filledMask(size, scalarsSpecified);
            } else {
                out.mask = combinedMask(node, masks, what, out.shape);
            }
        }
        auto term = std::make_shared<Term<T>>();
        term->op = op;
        for (auto &arg : args)
            term->args.push_back(arg.term);
        out.term = std::move(term);
        return out;
    }

    SharedMask
    combinedMask(const Expression &node, const std::vector<SharedMask> &masks, const std::string &what, const Shape &shape) const
    {
        SharedMask combined;
        for (std::size_t operand = 0; operand < masks.size(); ++operand) {
            const auto &mask = masks[operand];
            if (!mask)
                continue;
            if (!combined) {
                combined = mask; // shared, not copied: equal masks stay one object
            } else if (m_policy == MaskPolicy::Intersect) {
                combined = intersectMasks(*combined, *mask);
            } else if (const auto difference = maskDifference(*combined, *mask); !difference.empty()) {
                throw MaskMismatch(m_source, node, what, static_cast<int>(operand), difference, shape);
            }
        }
        return combined;
    }

    // ---- reductions: fused with the elementwise expression they reduce ----------------------

    Lazy<T> reduction(const Expression &node, ReduceOp op)
    {
        const Lazy<T> x = evaluate(*node.operands[0]);
        std::optional<int> dim;
        if (node.operands.size() > 1)
            dim = dimArgument(node, 1, x.shape);
        const Mask *mask = x.kind == ValueKind::Masked ? x.mask.get() : nullptr;
        try {
            const auto program = compile(x);
            return lazyOf<T>(std::make_shared<MaskedValue<T>>(m_device == Device::Cuda
                                                                  ? reduceOnGpu(program, x.shape, mask, op, dim)
                                                                  : reduce(program, x.shape, mask, op, dim)));
        } catch (const InputError &error) {
            fail(node, error.what());
        }
    }

    int dimArgument(const Expression &node, std::size_t index, const Shape &shape) const
    {
        const Expression &arg = *node.operands[index];
        const auto literal = integerLiteral(arg);
        if (!literal)
            fail(arg, node.name + ": the dim must be an integer literal");
        const auto dim = wrappedDim(*literal, shape.size());
        if (!dim)
            fail(arg, node.name + ": dim " + std::to_string(*literal) + " is out of range for a " + std::to_string(shape.size())
                          + "-d operand " + shapeToString(shape));
        return *dim;
    }

    // ---- layout and mask changes ------------------------------------------------------------

    // The pattern an operand stands for: a masked value's mask, a sparse value's stored
    // pattern, a bool tensor's true elements.
    SharedMask patternOf(const Expression &node, const ValuePtr<T> &value, const std::string &what) const
    {
        if (value->mask)
            return value->mask;
        if (value->isBool) {
            Mask mask(value->values.size());
            for (std::size_t i = 0; i < mask.size(); ++i)
                mask[i] = value->values[i] != T(0);
            return std::make_shared<const Mask>(std::move(mask));
        }
        fail(node,
             what + " must be sparse, masked or bool, but it is a dense " + shapeToString(value->shape) + " tensor of numbers");
    }

    Lazy<T> sparseMask(const Expression &node)
    {
        const auto x = materialise(evaluate(*node.operands[0]));
        const auto pattern = materialise(evaluate(*node.operands[1]));
        if (pattern->shape != x->shape)
            fail(node, "sparse_mask: shapes differ: " + shapeToString(x->shape) + " and " + shapeToString(pattern->shape));
        const auto bits = patternOf(*node.operands[1], pattern, "sparse_mask's pattern");
        auto out = std::make_shared<MaskedValue<T>>(*x);
        out->storage = pattern->storage == Layout::Dense ? Layout::Coo : pattern->storage;
        if (x->kind == ValueKind::Masked) {
            out->mask = intersectMasks(*x->mask, *bits);
        } else {
            out->kind = ValueKind::Sparse;
            out->mask = bits;
            for (std::size_t i = 0; i < out->values.size(); ++i)
                if (!(*bits)[i])
                    out->values[i] = T(0);
        }
        return lazyOf<T>(std::move(out));
    }

    Lazy<T> toDense(const Expression &node)
    {
        if (node.operands.size() > 1) {
            const Expression &flag = *node.operands[1];
            if (flag.kind != Expression::Kind::Number || !flag.integer || (flag.number != 0.0 && flag.number != 1.0))
                fail(flag, "to_dense: masked_grad must be 0 or 1");
        }
        Lazy<T> x = evaluate(*node.operands[0]);
        if (x.kind == ValueKind::Sparse) {
            x.kind = ValueKind::Plain;
            x.mask = nullptr;
        }
        x.storage = Layout::Dense;
        x.term = materialisedAs(x);
        return x;
    }

    Lazy<T> toSparse(const Expression &node)
    {
        Lazy<T> x = evaluate(*node.operands[0]);
        if (x.shape.empty())
            fail(node, "to_sparse: a 0-d value has no sparse layout");
        if (x.kind == ValueKind::Plain) {
            // torch's to_sparse(): the pattern is the nonzero elements.
            const auto values = materialise(x);
            Mask nonzero(values->values.size());
            for (std::size_t i = 0; i < nonzero.size(); ++i)
                nonzero[i] = values->values[i] != T(0);
            x.kind = ValueKind::Sparse;
            x.mask = std::make_shared<const Mask>(std::move(nonzero));
        }
        x.storage = Layout::Coo;
        x.term = materialisedAs(x);
        return x;
    }

    // masked(x, m): x's values with m's pattern as mask. intersect(x, y): x restricted to the
    // elements specified in both.
    Lazy<T> withMask(const Expression &node)
    {
        Lazy<T> x = evaluate(*node.operands[0]);
        const auto other = materialise(evaluate(*node.operands[1]));
        if (other->shape != x.shape)
            fail(node, node.name + ": shapes differ: " + shapeToString(x.shape) + " and " + shapeToString(other->shape));
        const auto bits = patternOf(*node.operands[1], other, node.name + "'s second operand");
        if (node.name == "intersect") {
            if (x.kind != ValueKind::Masked)
                fail(*node.operands[0], "intersect: the first operand must be masked");
            x.mask = intersectMasks(*x.mask, *bits);
        } else {
            x.mask = bits;
            x.storage = other->storage;
        }
        x.kind = ValueKind::Masked;
        x.isBool = false;
        x.term = materialisedAs(x);
        return x;
    }

    std::string_view m_source;
    MaskPolicy m_policy;
    Device m_device;
    Tape *m_tape;
    const Tape *m_baseline; // evaluateNear's recorded evaluation
    const FoldedSoftmaxes *m_folded;
    std::map<std::string, ValuePtr<T>> m_inputs;
};

// Input names whose values reach the result: all but those under the pattern operand of
// sparse_mask, masked and intersect.
void collectValueInputs(const Expression &node, std::vector<std::string> &names)
{
    if (node.kind == Expression::Kind::Name) {
        names.push_back(node.name);
        return;
    }
    const bool secondIsPattern =
        node.kind == Expression::Kind::Call && (node.name == "sparse_mask" || node.name == "masked" || node.name == "intersect");
    for (std::size_t k = 0; k < node.operands.size(); ++k)
        if (!(secondIsPattern && k == 1))
            collectValueInputs(*node.operands[k], names);
}

// `t` (a NamedTensor, copied from or moved out of) as an evaluator input.
template <class Named>
EvalInput converted(Named &&t, bool useDouble)
{
    if (useDouble)
        return {t.name, std::make_shared<MaskedValue<double>>(toMaskedValue<double>(std::forward<Named>(t).tensor, t.isBool))};
    return {t.name, std::make_shared<MaskedValue<float>>(toMaskedValue<float>(std::forward<Named>(t).tensor, t.isBool))};
}

bool needsDouble(const std::vector<EvalInput> &inputs)
{
    return std::any_of(inputs.begin(), inputs.end(), [](const EvalInput &i) { return i.value.index() == 1; });
}

} // namespace

template <class T>
Buffer<T> releasedValues(EvalInput &input)
{
    auto *held = std::get_if<std::shared_ptr<const MaskedValue<T>>>(&input.value);
    if (!held || held->use_count() != 1)
        return {};
    // Created non-const (converted()), and held by no one else: its values may move.
    return std::move(std::const_pointer_cast<MaskedValue<T>>(*held)->values);
}

template Buffer<float> releasedValues<float>(EvalInput &);
template Buffer<double> releasedValues<double>(EvalInput &);

std::vector<EvalInput> makeEvalInputs(const std::vector<NamedTensor> &tensors, bool forceDouble)
{
    const bool useDouble = forceDouble || std::any_of(tensors.begin(), tensors.end(), [](const NamedTensor &t) {
                               return t.tensor.dtype() == DType::Float64;
                           });
    std::vector<EvalInput> inputs;
    for (const auto &t : tensors)
        inputs.push_back(converted(t, useDouble));
    return inputs;
}

std::vector<EvalInput> makeEvalInputsIn(std::vector<NamedTensor> &&tensors, bool useDouble)
{
    std::vector<EvalInput> inputs;
    for (auto &t : tensors)
        inputs.push_back(converted(std::move(t), useDouble));
    return inputs;
}

std::vector<std::string> valueInputNames(const Expression &expression)
{
    std::vector<std::string> names;
    collectValueInputs(expression, names);
    return names;
}

bool computesInDouble(const Expression &expression, const std::vector<NamedTensor> &tensors)
{
    const auto valued = valueInputNames(expression);
    return std::any_of(tensors.begin(), tensors.end(), [&](const NamedTensor &t) {
        return !t.isBool && t.tensor.dtype() == DType::Float64 && std::find(valued.begin(), valued.end(), t.name) != valued.end();
    });
}

std::vector<EvalInput> makeEvalInputs(const std::vector<NamedTensor> &tensors, const Expression &expression)
{
    const bool useDouble = computesInDouble(expression, tensors);
    const auto referenced = expression.inputNames();
    std::vector<EvalInput> inputs;
    for (const auto &t : tensors) {
        if (std::find(referenced.begin(), referenced.end(), t.name) == referenced.end())
            continue; // bound but unused: never converted
        inputs.push_back(converted(t, useDouble));
    }
    return inputs;
}

AnyValue evaluateExpression(const Expression &expression,
                            std::string_view source,
                            const std::vector<EvalInput> &inputs,
                            MaskPolicy policy,
                            Device device,
                            const FoldedSoftmaxes *folded)
{
    if (needsDouble(inputs))
        return Evaluator<double>(source, inputs, policy, device, nullptr, nullptr, folded).run(expression);
    return Evaluator<float>(source, inputs, policy, device, nullptr, nullptr, folded).run(expression);
}

template <class T>
void foldExpression(const Expression &expression,
                    std::string_view source,
                    const std::vector<EvalInput> &inputs,
                    MaskPolicy policy,
                    RowReduction<T> &reduction,
                    std::int64_t rows,
                    const FoldedSoftmaxes *folded)
{
    Evaluator<T>(source, inputs, policy, Device::Cpu, nullptr, nullptr, folded)
        .compiled(expression,
                  [&](const ElementwiseProgram<T> &program, const Mask *mask) { reduction.add(program, rows, mask); });
}

template void foldExpression<float>(const Expression &,
                                    std::string_view,
                                    const std::vector<EvalInput> &,
                                    MaskPolicy,
                                    RowReduction<float> &,
                                    std::int64_t,
                                    const FoldedSoftmaxes *);
template void foldExpression<double>(const Expression &,
                                     std::string_view,
                                     const std::vector<EvalInput> &,
                                     MaskPolicy,
                                     RowReduction<double> &,
                                     std::int64_t,
                                     const FoldedSoftmaxes *);

MaskedValue<double>
evaluateRecorded(const Expression &expression, std::string_view source, const std::vector<EvalInput> &inputs, Tape &tape)
{
    return Evaluator<double>(source, inputs, MaskPolicy::Strict, Device::Cpu, &tape).run(expression);
}

MaskedValue<double>
evaluateNear(const Expression &expression, std::string_view source, const std::vector<EvalInput> &inputs, const Tape &baseline)
{
    return Evaluator<double>(source, inputs, MaskPolicy::Strict, Device::Cpu, nullptr, &baseline).run(expression);
}

Tensor toTensor(const AnyValue &value)
{
    return std::visit([](const auto &v) { return toTensor(v); }, value);
}

std::string formatValue(const AnyValue &value, int decimals)
{
    return std::visit([decimals](const auto &v) { return formatValue(v, decimals); }, value);
}

} // namespace sparsity::core
