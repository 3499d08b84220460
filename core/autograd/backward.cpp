#include "core/autograd/backward.h"

#include "core/masked/element_ops.h"
#include "core/masked/reduction_kernels.h"
#include "core/masked/softmax_kernel.h"
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
    case ElementOp::Neg:
        return {-1, 0, 0};
    case ElementOp::Abs:
        return {a > 0 ? 1.0 : a < 0 ? -1.0 : 0.0, 0, 0};
    case ElementOp::Sqrt:
        return {0.5 / out, 0, 0};
    case ElementOp::Rsqrt:
        return {-0.5 * out / a, 0, 0};
    case ElementOp::Square:
        return {2 * a, 0, 0};
    case ElementOp::Exp:
        return {out, 0, 0};
    case ElementOp::Log:
        return {1 / a, 0, 0};
    case ElementOp::Sign:
        return {0, 0, 0};
    case ElementOp::Add:
        return {1, 1, 0};
    case ElementOp::Sub:
        return {1, -1, 0};
    case ElementOp::Mul:
        return {b, a, 0};
    case ElementOp::Div:
        return {1 / b, -a / (b * b), 0};
    // torch: ties split the gradient evenly.
    case ElementOp::Maximum:
        return a > b   ? std::array<double, 3>{1, 0, 0}
               : a < b ? std::array<double, 3>{0, 1, 0}
                       : std::array<double, 3>{0.5, 0.5, 0};
    case ElementOp::Minimum:
        return a < b   ? std::array<double, 3>{1, 0, 0}
               : a > b ? std::array<double, 3>{0, 1, 0}
                       : std::array<double, 3>{0.5, 0.5, 0};
    case ElementOp::Pow:
        return {b * std::pow(a, b - 1), (a == 0 && b >= 0) ? 0.0 : out * std::log(a), 0};
    case ElementOp::Clamp:
        return {(a >= b && a <= c) ? 1.0 : 0.0, a < b ? 1.0 : 0.0, a > c ? 1.0 : 0.0};
    case ElementOp::Where:
        return {0, a != 0 ? 1.0 : 0.0, a != 0 ? 0.0 : 1.0};
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

// Every gradient is a batch of them: `m_batch` rows of the node's element count, row-major.
class Backward {
public:
    Backward(const Tape &tape, std::int64_t batch) : m_tape(tape), m_batch(at(batch)) {}

    std::map<std::string, Gradient> run(const Expression &root, const Gradient &seeds)
    {
        m_gradients[&root] = seeds;
        for (auto node = m_tape.order.rbegin(); node != m_tape.order.rend(); ++node) {
            const auto found = m_gradients.find(*node);
            if (found == m_gradients.end())
                continue;
            Gradient g = std::move(found->second);
            m_gradients.erase(found);
            const auto &value = m_tape.valueOf(**node);
            if (value.kind == ValueKind::Masked)
                project(g, *value.mask); // a masked value's gradient stays masked
            propagate(**node, value, g);
        }
        return std::move(m_inputs);
    }

private:
    // Zeroes the entries outside `keep` in every row of the batch.
    static void project(Gradient &g, const Mask &keep)
    {
        const std::size_t n = keep.size();
        for (std::size_t i = 0; i < g.size(); ++i)
            if (!keep[i % n])
                g[i] = 0.0;
    }

    Gradient &gradientOf(const Expression &node)
    {
        auto &g = m_gradients[&node];
        if (g.empty())
            g.assign(m_batch * at(m_tape.valueOf(node).numel()), 0.0);
        return g;
    }

    void propagate(const Expression &node, const MaskedValue<double> &out, const Gradient &g)
    {
        switch (node.kind) {
        case Expression::Kind::Number:
            return;
        case Expression::Kind::Name: {
            auto &total = m_inputs[node.name];
            if (total.empty())
                total.assign(g.size(), 0.0);
            for (std::size_t i = 0; i < g.size(); ++i)
                total[i] += g[i];
            return;
        }
        case Expression::Kind::Negate:
            return elementwise(node, ElementOp::Neg, out, g);
        case Expression::Kind::Binary: {
            const char symbol[2] = {node.op, 0};
            return elementwise(node, *elementOpNamed(symbol), out, g);
        }
        case Expression::Kind::Call:
            return call(node, out, g);
        }
    }

    void call(const Expression &node, const MaskedValue<double> &out, const Gradient &g)
    {
        const std::string &f = node.name;
        if (const auto op = elementOpNamed(f))
            return elementwise(node, *op, out, g);
        if (const auto op = reduceOpNamed(f))
            return reduction(node, *op, out, g);
        if (softmaxNamed(f))
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
        const std::size_t n = target.size() / m_batch;
        for (std::size_t i = 0; i < g.size(); ++i) {
            const std::size_t e = i % n;
            const bool keep = !pattern || (pattern->mask ? (*pattern->mask)[e] != 0 : pattern->values[e] != 0.0);
            if (keep)
                target[i] += g[i];
        }
    }

    void elementwise(const Expression &node, ElementOp op, const MaskedValue<double> &out, const Gradient &g)
    {
        const std::size_t arity = node.operands.size();
        const std::size_t n = at(out.numel());
        auto valueAt = [&](std::size_t j, std::size_t i) {
            if (j >= arity)
                return 0.0;
            const auto &v = m_tape.valueOf(*node.operands[j]).values;
            return v[v.size() == 1 ? 0 : i];
        };
        std::vector<double> partial(n);
        for (std::size_t k = 0; k < arity; ++k) {
            const auto &operand = m_tape.valueOf(*node.operands[k]);
            // Literals and bool masks take no gradient.
            if (node.operands[k]->kind == Expression::Kind::Number || operand.isBool)
                continue;
            for (std::size_t i = 0; i < n; ++i)
                partial[i] = elementPartials(op, valueAt(0, i), valueAt(1, i), valueAt(2, i), out.values[i])[k];
            auto &target = gradientOf(*node.operands[k]);
            const bool broadcast = operand.values.size() == 1 && n != 1;
            for (std::size_t b = 0; b < m_batch; ++b) {
                const double *gb = g.data() + b * n;
                if (broadcast) {
                    double total = 0.0;
                    for (std::size_t i = 0; i < n; ++i)
                        total += gb[i] * partial[i];
                    target[b] += total;
                } else {
                    double *tb = target.data() + b * n;
                    for (std::size_t i = 0; i < n; ++i)
                        tb[i] += gb[i] * partial[i];
                }
            }
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
            return at((e / (geometry.reduced * geometry.inner)) * geometry.inner + e % geometry.inner);
        };
        // Per output: how many elements took part (mean) or tie for the extreme (amax/amin).
        std::vector<double> count(out.values.size(), 0.0);
        for (std::int64_t e = 0; e < x.numel(); ++e) {
            if (masked && !specifiedAt(x, at(e)))
                continue;
            const auto r = outputOf(e);
            if ((op != ReduceOp::Amax && op != ReduceOp::Amin) || x.values[at(e)] == out.values[r])
                count[r] += 1.0;
        }
        // d output(e) / d x[e], the same for every row of the batch.
        std::vector<double> partial(at(x.numel()), 0.0);
        for (std::int64_t e = 0; e < x.numel(); ++e) {
            if (masked && !specifiedAt(x, at(e)))
                continue;
            const auto r = outputOf(e);
            const double xe = x.values[at(e)];
            switch (op) {
            case ReduceOp::Sum:
                partial[at(e)] = 1.0;
                break;
            case ReduceOp::Mean:
                partial[at(e)] = 1.0 / count[r];
                break;
            case ReduceOp::Norm:
                partial[at(e)] = out.values[r] == 0.0 ? 0.0 : xe / out.values[r];
                break;
            case ReduceOp::Amax:
            case ReduceOp::Amin:
                partial[at(e)] = xe == out.values[r] ? 1.0 / count[r] : 0.0;
                break;
            }
        }
        auto &target = gradientOf(*node.operands[0]);
        const std::size_t n = at(x.numel()), outputs = out.values.size();
        for (std::size_t b = 0; b < m_batch; ++b)
            for (std::size_t e = 0; e < n; ++e)
                target[b * n + e] += g[b * outputs + outputOf(static_cast<std::int64_t>(e))] * partial[e];
    }

    void softmax(const Expression &node, const MaskedValue<double> &y, const Gradient &g, bool logarithm)
    {
        const auto &x = m_tape.valueOf(*node.operands[0]);
        const auto d = static_cast<std::size_t>(literalDim(*node.operands[1], x.shape.size()));
        const std::int64_t n = x.shape[d];
        const std::int64_t inner = numel(x.shape, d + 1, x.shape.size());
        const std::int64_t lanes = numel(x.shape) / std::max<std::int64_t>(n, 1);
        const std::size_t size = at(x.numel());
        auto &target = gradientOf(*node.operands[0]);
        for (std::size_t b = 0; b < m_batch; ++b) {
            const double *gb = g.data() + b * size;
            double *tb = target.data() + b * size;
            for (std::int64_t lane = 0; lane < lanes; ++lane) {
                const std::int64_t base = (lane / inner) * n * inner + lane % inner;
                double dot = 0.0;
                for (std::int64_t j = 0; j < n; ++j) {
                    const auto i = at(base + j * inner);
                    if (specifiedAt(y, i))
                        dot += logarithm ? gb[i] : gb[i] * y.values[i];
                }
                for (std::int64_t j = 0; j < n; ++j) {
                    const auto i = at(base + j * inner);
                    if (specifiedAt(y, i))
                        tb[i] += logarithm ? gb[i] - std::exp(y.values[i]) * dot : y.values[i] * (gb[i] - dot);
                }
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

    // target += full where `operand` is specified (everywhere for a dense operand).
    static void addOnPattern(Eigen::Map<Matrix> &target, const Matrix &full, const MaskedValue<double> &operand)
    {
        for (Eigen::Index i = 0; i < full.size(); ++i)
            if (specifiedAt(operand, at(i)))
                target.data()[i] += full.data()[i];
    }

    void matmul(const Expression &node, const Gradient &g, bool sparseProduct)
    {
        const auto &a = m_tape.valueOf(*node.operands[0]);
        const auto &b = m_tape.valueOf(*node.operands[1]);
        const Eigen::Index m = a.shape[0], k = a.shape[1], n = b.shape[1];
        const Matrix A = zeroFilled(a), B = zeroFilled(b);
        auto &ta = gradientOf(*node.operands[0]);
        auto &tb = gradientOf(*node.operands[1]);
        for (std::size_t r = 0; r < m_batch; ++r) {
            const Eigen::Map<const Matrix> G(g.data() + r * at(m * n), m, n);
            Eigen::Map<Matrix> dA(ta.data() + r * at(m * k), m, k);
            Eigen::Map<Matrix> dB(tb.data() + r * at(k * n), k, n);
            if (sparseProduct) {
                // sparse_mm's backward is masked for each sparse operand: each gradient is projected onto
                // that operand's own pattern, the second operand's too (docs/SEMANTICS.md, "gradcheck").
                addOnPattern(dA, G * B.transpose(), a);
                addOnPattern(dB, A.transpose() * G, b);
            } else {
                dA.noalias() += G * B.transpose();
                dB.noalias() += A.transpose() * G;
            }
        }
    }

    const Tape &m_tape;
    std::size_t m_batch;
    std::unordered_map<const Expression *, Gradient> m_gradients;
    std::map<std::string, Gradient> m_inputs;
};

} // namespace

GradientTreatment operandTreatment(const Expression &node, std::size_t k)
{
    if (node.kind != Expression::Kind::Call)
        return GradientTreatment::NonMasked;
    const std::string &f = node.name;
    if (k == 1 && (f == "sparse_mask" || f == "masked" || f == "intersect"))
        return GradientTreatment::PatternOnly;
    const bool maskedGrad = f == "to_dense" && node.operands.size() > 1 && node.operands[1]->number != 0.0;
    if (f == "sparse_mm" || (k == 0 && (f == "sparse_mask" || maskedGrad)))
        return GradientTreatment::Masked;
    return GradientTreatment::NonMasked;
}

std::map<std::string, std::vector<double>>
backward(const Expression &root, const Tape &tape, const std::vector<double> &rootGradients, std::int64_t batch)
{
    return Backward(tape, batch).run(root, rootGradients);
}

} // namespace sparsity::core
