#include "core/autograd/backward.h"

#include "core/masked/element_ops.h"
#include "core/masked/reduction_kernels.h"
#include "core/util/errors.h"

#include <Eigen/Core>

#include <cmath>

namespace sparsity::core {
namespace {

using Gradient = std::vector<double>;
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

// d op / d operand k at one element, k < 3.
std::array<double, 3> elementPartials(ElementOp op, double a, double b, double c, double out)
{
    switch (op) {
    case ElementOp::Neg: return {-1, 0, 0};
    case ElementOp::Abs: return {a > 0 ? 1.0 : a < 0 ? -1.0 : 0.0, 0, 0};
    case ElementOp::Sqrt: return {0.5 / out, 0, 0};
    case ElementOp::Rsqrt: return {-0.5 * out / a, 0, 0};
    case ElementOp::Square: return {2 * a, 0, 0};
    case ElementOp::Exp: return {out, 0, 0};
    case ElementOp::Log: return {1 / a, 0, 0};
    case ElementOp::Sign: return {0, 0, 0};
    case ElementOp::Add: return {1, 1, 0};
    case ElementOp::Sub: return {1, -1, 0};
    case ElementOp::Mul: return {b, a, 0};
    case ElementOp::Div: return {1 / b, -a / (b * b), 0};
    // torch: ties split the gradient evenly.
    case ElementOp::Maximum: return a > b ? std::array<double, 3>{1, 0, 0} : a < b ? std::array<double, 3>{0, 1, 0} : std::array<double, 3>{0.5, 0.5, 0};
    case ElementOp::Minimum: return a < b ? std::array<double, 3>{1, 0, 0} : a > b ? std::array<double, 3>{0, 1, 0} : std::array<double, 3>{0.5, 0.5, 0};
    case ElementOp::Pow: return {b * std::pow(a, b - 1), (a == 0 && b >= 0) ? 0.0 : out * std::log(a), 0};
    case ElementOp::Clamp: return {(a >= b && a <= c) ? 1.0 : 0.0, a < b ? 1.0 : 0.0, a > c ? 1.0 : 0.0};
    case ElementOp::Where: return {0, a != 0 ? 1.0 : 0.0, a != 0 ? 0.0 : 1.0};
    }
    return {0, 0, 0};
}

bool specifiedAt(const MaskedValue<double> &v, std::size_t i) { return !v.mask || (*v.mask)[i] != 0; }

// A dim argument the forward pass already checked: an integer literal, maybe negated.
int literalDim(const Expression &arg, std::size_t rank)
{
    const bool negative = arg.kind == Expression::Kind::Negate;
    const auto written = static_cast<int>((negative ? arg.operands[0]->number : arg.number) * (negative ? -1 : 1));
    return written < 0 ? written + static_cast<int>(rank) : written;
}

class Backward {
public:
    Backward(const Tape &tape) : m_tape(tape) {}

    std::map<std::string, Gradient> run(const Expression &root, const Gradient &seed)
    {
        m_gradients[&root] = seed;
        for (auto node = m_tape.order.rbegin(); node != m_tape.order.rend(); ++node) {
            const auto found = m_gradients.find(*node);
            if (found == m_gradients.end())
                continue;
            Gradient g = std::move(found->second);
            m_gradients.erase(found);
            const auto &value = m_tape.valueOf(**node);
            if (value.kind == ValueKind::Masked)
                project(g, *value.mask);   // a masked value's gradient stays masked
            propagate(**node, value, g);
        }
        return std::move(m_inputs);
    }

private:
    static void project(Gradient &g, const Mask &mask)
    {
        for (std::size_t i = 0; i < g.size(); ++i)
            if (!mask[i])
                g[i] = 0.0;
    }

    Gradient &gradientOf(const Expression &node)
    {
        auto &g = m_gradients[&node];
        if (g.empty())
            g.assign(at(m_tape.valueOf(node).numel()), 0.0);
        return g;
    }

    void propagate(const Expression &node, const MaskedValue<double> &out, const Gradient &g)
    {
        switch (node.kind) {
        case Expression::Kind::Number: return;
        case Expression::Kind::Name: {
            auto &total = m_inputs[node.name];
            if (total.empty())
                total.assign(g.size(), 0.0);
            for (std::size_t i = 0; i < g.size(); ++i)
                total[i] += g[i];
            return;
        }
        case Expression::Kind::Negate: return elementwise(node, ElementOp::Neg, out, g);
        case Expression::Kind::Binary: {
            const char symbol[2] = {node.op, 0};
            return elementwise(node, *elementOpNamed(symbol), out, g);
        }
        case Expression::Kind::Call: return call(node, out, g);
        }
    }

    void call(const Expression &node, const MaskedValue<double> &out, const Gradient &g)
    {
        const std::string &f = node.name;
        if (const auto op = elementOpNamed(f))
            return elementwise(node, *op, out, g);
        if (const auto op = reduceOpNamed(f))
            return reduction(node, *op, out, g);
        if (f == "softmax" || f == "log_softmax")
            return softmax(node, out, g, f == "log_softmax");
        if (f == "mm" || f == "sparse_mm")
            return matmul(node, g, f == "sparse_mm");
        if (f == "sparse_mask")
            return passThrough(*node.operands[0], g, &m_tape.valueOf(*node.operands[1]));
        if (f == "to_dense") {
            const bool maskedGrad = node.operands.size() > 1 && node.operands[1]->number != 0.0;
            const auto &x = m_tape.valueOf(*node.operands[0]);
            return passThrough(*node.operands[0], g, maskedGrad ? &x : nullptr);
        }
        if (f == "to_sparse" || f == "data" || f == "masked" || f == "intersect")
            return passThrough(*node.operands[0], g, nullptr);
        throw InternalError("backward: no rule for '" + f + "'");
    }

    // The gradient flows to `operand` unchanged, or projected onto `pattern`'s specified or
    // stored elements (a bool tensor's true ones).
    void passThrough(const Expression &operand, const Gradient &g, const MaskedValue<double> *pattern)
    {
        auto &target = gradientOf(operand);
        for (std::size_t i = 0; i < g.size(); ++i) {
            const bool keep = !pattern || (pattern->mask ? (*pattern->mask)[i] != 0 : pattern->values[i] != 0.0);
            if (keep)
                target[i] += g[i];
        }
    }

    void elementwise(const Expression &node, ElementOp op, const MaskedValue<double> &out, const Gradient &g)
    {
        const std::size_t arity = node.operands.size();
        std::array<const MaskedValue<double> *, 3> operands{};
        std::array<Gradient *, 3> targets{};
        for (std::size_t k = 0; k < arity; ++k) {
            operands[k] = &m_tape.valueOf(*node.operands[k]);
            // Literals and bool masks take no gradient.
            const bool differentiable = node.operands[k]->kind != Expression::Kind::Number && !operands[k]->isBool;
            targets[k] = differentiable ? &gradientOf(*node.operands[k]) : nullptr;
        }
        auto valueAt = [&](std::size_t k, std::size_t i) {
            if (k >= arity)
                return 0.0;
            return operands[k]->values[operands[k]->values.size() == 1 ? 0 : i];
        };
        for (std::size_t i = 0; i < g.size(); ++i) {
            if (g[i] == 0.0)
                continue;
            const auto partials = elementPartials(op, valueAt(0, i), valueAt(1, i), valueAt(2, i), out.values[i]);
            for (std::size_t k = 0; k < arity; ++k)
                if (targets[k])
                    (*targets[k])[targets[k]->size() == 1 ? 0 : i] += g[i] * partials[k];
        }
    }

    void reduction(const Expression &node, ReduceOp op, const MaskedValue<double> &out, const Gradient &g)
    {
        const auto &x = m_tape.valueOf(*node.operands[0]);
        std::optional<int> dim;
        if (node.operands.size() > 1)
            dim = literalDim(*node.operands[1], x.shape.size());
        const auto geometry = reductionGeometry(x.shape, dim);
        const bool masked = x.kind == ValueKind::Masked;
        auto outputOf = [&](std::int64_t e) {
            return (e / (geometry.reduced * geometry.inner)) * geometry.inner + e % geometry.inner;
        };
        // Per output: how many elements took part (mean) or tie for the extreme (amax/amin).
        std::vector<double> count(out.values.size(), 0.0);
        for (std::int64_t e = 0; e < x.numel(); ++e) {
            if (masked && !specifiedAt(x, at(e)))
                continue;
            const auto r = at(outputOf(e));
            if ((op != ReduceOp::Amax && op != ReduceOp::Amin) || x.values[at(e)] == out.values[r])
                count[r] += 1.0;
        }
        auto &target = gradientOf(*node.operands[0]);
        for (std::int64_t e = 0; e < x.numel(); ++e) {
            if (masked && !specifiedAt(x, at(e)))
                continue;
            const auto r = at(outputOf(e));
            const double xe = x.values[at(e)];
            double d = 0.0;
            switch (op) {
            case ReduceOp::Sum: d = 1.0; break;
            case ReduceOp::Mean: d = 1.0 / count[r]; break;
            case ReduceOp::Norm: d = out.values[r] == 0.0 ? 0.0 : xe / out.values[r]; break;
            case ReduceOp::Amax:
            case ReduceOp::Amin: d = xe == out.values[r] ? 1.0 / count[r] : 0.0; break;
            }
            target[at(e)] += g[r] * d;
        }
    }

    void softmax(const Expression &node, const MaskedValue<double> &y, const Gradient &g, bool logarithm)
    {
        const auto &x = m_tape.valueOf(*node.operands[0]);
        const auto d = static_cast<std::size_t>(literalDim(*node.operands[1], x.shape.size()));
        const std::int64_t n = x.shape[d];
        const std::int64_t inner = numel(x.shape, d + 1, x.shape.size());
        const std::int64_t lanes = numel(x.shape) / std::max<std::int64_t>(n, 1);
        auto &target = gradientOf(*node.operands[0]);
        for (std::int64_t lane = 0; lane < lanes; ++lane) {
            const std::int64_t base = (lane / inner) * n * inner + lane % inner;
            double dot = 0.0;
            for (std::int64_t j = 0; j < n; ++j) {
                const auto i = at(base + j * inner);
                if (specifiedAt(y, i))
                    dot += logarithm ? g[i] : g[i] * y.values[i];
            }
            for (std::int64_t j = 0; j < n; ++j) {
                const auto i = at(base + j * inner);
                if (!specifiedAt(y, i))
                    continue;
                target[i] += logarithm ? g[i] - std::exp(y.values[i]) * dot : y.values[i] * (g[i] - dot);
            }
        }
    }

    // Values with unspecified elements 0, as the forward product used them.
    static Matrix zeroFilled(const MaskedValue<double> &v)
    {
        Matrix m = Eigen::Map<const Matrix>(v.values.data(), v.shape[0], v.shape[1]);
        if (v.mask && v.kind == ValueKind::Masked)
            for (Eigen::Index i = 0; i < m.size(); ++i)
                if (!(*v.mask)[at(i)])
                    m.data()[i] = 0.0;
        return m;
    }

    void matmul(const Expression &node, const Gradient &g, bool sparseProduct)
    {
        const auto &a = m_tape.valueOf(*node.operands[0]);
        const auto &b = m_tape.valueOf(*node.operands[1]);
        const Eigen::Map<const Matrix> G(g.data(), a.shape[0], b.shape[1]);
        const Matrix dA = G * zeroFilled(b).transpose();
        const Matrix dB = zeroFilled(a).transpose() * G;
        auto &ta = gradientOf(*node.operands[0]);
        for (Eigen::Index i = 0; i < dA.size(); ++i)
            // sparse_mm's backward is masked for its sparse operand: the pattern only.
            if (!sparseProduct || specifiedAt(a, at(i)))
                ta[at(i)] += dA.data()[i];
        auto &tb = gradientOf(*node.operands[1]);
        for (Eigen::Index i = 0; i < dB.size(); ++i)
            tb[at(i)] += dB.data()[i];
    }

    const Tape &m_tape;
    std::unordered_map<const Expression *, Gradient> m_gradients;
    std::map<std::string, Gradient> m_inputs;
};

} // namespace

std::map<std::string, std::vector<double>> backward(const Expression &root, const Tape &tape,
                                                    const std::vector<double> &rootGradient)
{
    return Backward(tape).run(root, rootGradient);
}

} // namespace sparsity::core
