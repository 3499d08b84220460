#include "core/autograd/gradcheck.h"

#include "core/autograd/backward.h"
#include "core/masked/mask_algebra.h"
#include "core/util/errors.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <omp.h>
#include <random>
#include <span>
#include <sstream>

namespace sparsity::core {
namespace {

using Value = MaskedValue<double>;
using Vector = std::vector<double>;

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

bool specifiedAt(const Value &v, std::int64_t i) { return !v.mask || (*v.mask)[at(i)] != 0; }

// Output values with unspecified elements 0 (in place: an evaluation's result is its own).
Buffer<double> denseOutput(Value &&v)
{
    if (v.kind == ValueKind::Masked)
        for (std::int64_t i = 0; i < v.numel(); ++i)
            if (!specifiedAt(v, i))
                v.values[at(i)] = 0.0;
    return std::move(v.values);
}

bool close(double analytical, double numerical, const GradcheckOptions &o)
{
    return std::abs(analytical - numerical) <= o.atol + o.rtol * std::abs(numerical);
}

// How each use of input `name` treats its gradient (backward.h), e.g.
// "sparse_mm operand 1: masked backward (projected onto x's pattern)".
void describeUses(const Expression &node,
                  const std::string &name,
                  std::vector<std::string> &uses,
                  std::vector<std::string> &maskedUses,
                  std::vector<std::string> &denseUses)
{
    for (std::size_t k = 0; k < node.operands.size(); ++k) {
        const Expression &operand = *node.operands[k];
        if (operand.kind == Expression::Kind::Name && operand.name == name) {
            const std::string op = node.kind == Expression::Kind::Call     ? node.name
                                   : node.kind == Expression::Kind::Negate ? std::string("unary -")
                                                                           : std::string("'") + node.op + "'";
            const std::string where = op + " operand " + std::to_string(k + 1);
            const auto treatment = operandTreatment(node, k);
            if (treatment == GradientTreatment::PatternOnly) {
                uses.push_back(where + ": pattern only, no gradient");
            } else if (treatment == GradientTreatment::Masked) {
                uses.push_back(where + ": masked backward (projected onto " + name + "'s pattern)");
                maskedUses.push_back(where);
            } else {
                uses.push_back(where + ": non-masked backward (a gradient for every element)");
                denseUses.push_back(where);
            }
        }
        describeUses(operand, name, uses, maskedUses, denseUses);
    }
}

std::string joined(const std::vector<std::string> &parts)
{
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i)
        out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    return out;
}

// How the masked uses of `name` treat its gradient, e.g. "the masked backward of sparse_mm
// operand 1 and sparse_mm operand 2 keeps only x's pattern (sparse_mm's backward projects
// each sparse operand's gradient onto that operand's own pattern)".
std::string projectingUses(const std::string &name, const std::vector<std::string> &maskedUses)
{
    if (maskedUses.empty())
        return "no use of " + name + " has a masked backward";
    std::string why = "the masked backward of " + joined(maskedUses) + " keeps only " + name + "'s pattern";
    if (std::any_of(maskedUses.begin(), maskedUses.end(), [](const std::string &use) { return use.starts_with("sparse_mm "); }))
        why += " (sparse_mm's backward projects each sparse operand's gradient onto that operand's own pattern)";
    return why;
}

class Checker {
public:
    Checker(const Expression &expression,
            std::string_view source,
            const std::vector<NamedTensor> &tensors,
            const GradcheckOptions &options,
            ProgressCallback progress)
        : m_expression(expression), m_source(source), m_options(options), m_progress(std::move(progress))
    {
        m_inputs = makeEvalInputs(tensors, true);
        // The inputs that get a Jacobian; perturbations go to copies of them (perturbedCopy).
        for (const auto &input : m_inputs)
            if (const auto &value = std::get<1>(input.value); !value->isBool)
                m_checked.emplace(input.name, value);
        m_base = evaluateRecorded(expression, source, m_inputs, m_tape);
    }

    GradcheckReport run()
    {
        GradcheckReport report;
        report.options = m_options;
        report.outputShape = m_base.shape;
        // A backward batch counts its seeds: one output's column costs about what one perturbed
        // input row does, so the bar moves through the backward passes too (counted as one unit
        // per batch, it sat at 0% for the first seconds of a 4096 x 4096 check).
        m_total = m_options.fast ? 0 : m_base.numel();
        for (const auto &name : m_expression.inputNames())
            if (const auto found = m_checked.find(name); found != m_checked.end())
                m_total += m_options.fast ? 1 : found->second->numel();
        reportProgress(m_progress, 0, m_total);
        if (!m_options.fast) {
            requireJacobiansFit();
            m_analytical = analyticalJacobians();
        }
        for (const auto &name : m_expression.inputNames()) {
            const auto found = m_checked.find(name);
            if (found == m_checked.end())
                continue; // a bool mask: no Jacobian
            InputJacobian jacobian = m_options.fast ? projected(name, *found->second) : full(name, *found->second);
            explain(jacobian, *found->second);
            report.passed = report.passed && jacobian.mismatches.empty();
            report.inputs.push_back(std::move(jacobian));
        }
        return report;
    }

private:
    // Unit seeds per batched backward pass. A pass holds a gradient of seeds x elements for every
    // node; each thread's first pass faults that memory in. At 64 seeds a 24 x 24 check's passes
    // faulted in 750 fresh pages (over 10 us each on a virtual machine), at 16 about 220, and
    // the warm check is no slower (docs/PERFORMANCE.md, 2026-11-27).
    static constexpr std::int64_t kSeedsPerPass = 16;

    // `units` more work is done (a backward batch counts its seeds, a perturbed row one). Only
    // the job's own thread (thread 0 of a parallel region) calls the callback; a refusal is
    // remembered and every thread stops at its next row.
    void advance(bool mayReport, std::int64_t units = 1)
    {
        const auto done = m_done += units;
        if (mayReport && m_progress && !m_cancelled && !m_progress(done, m_total))
            m_cancelled = true;
    }
    void stopIfCancelled() const
    {
        if (m_cancelled)
            throw Cancelled();
    }
    // One unit of a parallel loop's work (a backward pass, a perturbed row). No exception may
    // leave an OpenMP region: one is kept in `failure` for finishParallel(), and every thread
    // skips the units left, as after a refusal.
    template <class Work>
    void guarded(std::exception_ptr &failure, Work &&work)
    {
        if (m_cancelled || m_failed)
            return;
        try {
            work();
        } catch (...) {
            m_failed = true;
#pragma omp critical
            failure = std::current_exception();
        }
    }
    // After a parallel loop: its failure, else Cancelled when a refusal stopped it.
    void finishParallel(const std::exception_ptr &failure) const
    {
        if (failure)
            std::rethrow_exception(failure);
        stopIfCancelled();
    }

    // A perturbed evaluation: lanes of a softmax that the perturbation left as they were are
    // taken from the recorded one (evaluateNear), a perturbed row of `x` in `softmax(mm(x, w), 1)`
    // changing one lane of many.
    Buffer<double> evaluateDense(const std::vector<EvalInput> &inputs) const
    {
        return denseOutput(evaluateNear(m_expression, m_source, inputs, m_tape));
    }

    bool perturbable(const Value &x, std::int64_t e) const { return !m_options.masked || specifiedAt(x, e); }

    // A private copy of input `name`'s value `x`, and the inputs with it in x's place. The
    // perturbations go there: the recorded evaluation holds `x` itself, and evaluateNear compares
    // the perturbed lanes with what it holds (perturbed in place, every lane would match).
    struct PerturbedCopy {
        std::shared_ptr<Value> value;
        std::vector<EvalInput> inputs;
    };
    PerturbedCopy perturbedCopy(const std::string &name, const Value &x) const
    {
        PerturbedCopy copy{std::make_shared<Value>(x), m_inputs};
        for (auto &input : copy.inputs)
            if (input.name == name)
                input.value = std::shared_ptr<const Value>(copy.value);
        return copy;
    }

    // f(x + eps*direction) - f(x - eps*direction) over 2 eps into `d` (one per output
    // element), `x` being the value `inputs` hold for the perturbed input; unspecified elements
    // the direction touches become specified for the evaluation (non-masked mode).
    void centralDifference(Value &x, const Vector &direction, const std::vector<EvalInput> &inputs, std::span<double> d) const
    {
        const auto originalValues = x.values;
        const auto originalMask = x.mask;
        if (x.mask && !m_options.masked) {
            Mask extended = *x.mask;
            for (std::size_t i = 0; i < extended.size(); ++i)
                extended[i] = extended[i] || direction[i] != 0.0;
            x.mask = std::make_shared<const Mask>(std::move(extended));
        }
        for (std::size_t i = 0; i < direction.size(); ++i)
            x.values[i] = originalValues[i] + m_options.eps * direction[i];
        const auto plus = evaluateDense(inputs);
        for (std::size_t i = 0; i < direction.size(); ++i)
            x.values[i] = originalValues[i] - m_options.eps * direction[i];
        const auto minus = evaluateDense(inputs);
        x.values = originalValues;
        x.mask = originalMask;
        if (plus.size() != d.size() || minus.size() != d.size())
            throw InternalError("gradcheck: a perturbed evaluation changed the output's size");
        for (std::size_t k = 0; k < d.size(); ++k)
            d[k] = (plus[k] - minus[k]) / (2.0 * m_options.eps);
    }

    Vector gradientFor(const std::string &name, const Vector &seed) const
    {
        auto gradients = backward(m_expression, m_tape, seed);
        const auto found = gradients.find(name);
        return found == gradients.end() ? Vector(at(m_checked.at(name)->numel()), 0.0) : std::move(found->second);
    }

    // The full mode holds two float64 Jacobians (numerical, analytical) of every input with a
    // gradient, input elements x output elements each: a 1797 x 64 input of a 1797 x 10 output
    // needs 31 GiB, which went past the machine's memory instead of being refused.
    void requireJacobiansFit() const
    {
        const auto budget = wholeTensorBudget();
        if (!budget)
            return;
        double bytes = 0.0; // a declared size may not fit 64 bits
        std::string which;
        for (const auto &name : m_expression.inputNames()) // each name once
            if (const auto found = m_checked.find(name); found != m_checked.end()) {
                bytes += 2.0 * sizeof(double) * static_cast<double>(found->second->numel()) * static_cast<double>(m_base.numel());
                const auto label = m_options.inputLabels.find(name);
                which += (which.empty() ? "'" : ", '") + name + "' ("
                         + (label == m_options.inputLabels.end() ? std::string() : label->second + ", ")
                         + std::to_string(found->second->numel()) + " x " + std::to_string(m_base.numel()) + ")";
            }
        if (bytes > static_cast<double>(*budget))
            throw InputError("gradcheck of '" + std::string(m_source) + "': the numerical and analytical Jacobians of " + which
                             + " need " + formatBytes(bytes) + " in memory, more than the memory limit of "
                             + formatBytes(static_cast<double>(*budget))
                             + "; check in fast mode (one random projection per input), on smaller inputs, or raise the "
                               "memory limit");
    }

    // Every input's analytical Jacobian (rows x cols), from batched backward passes: a batch
    // of unit seeds, one per output element, gives that many columns in one pass.
    std::map<std::string, Buffer<double>> analyticalJacobians()
    {
        const std::int64_t cols = m_base.numel();
        std::map<std::string, Buffer<double>> jacobians;
        for (const auto &[name, x] : m_checked)
            jacobians[name] = zeroedBuffer<double>(at(x->numel() * cols));
        // The passes are independent (each fills its own columns), so threads take them in turn;
        // the numerical rows that follow are divided the same way.
        const std::int64_t passes = (cols + kSeedsPerPass - 1) / kSeedsPerPass;
        std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic, 1) if (passes > 1)
        for (std::int64_t pass = 0; pass < passes; ++pass) {
            guarded(failure, [&] {
                const std::int64_t first = pass * kSeedsPerPass, batch = std::min(kSeedsPerPass, cols - first);
                Vector seeds(at(batch * cols), 0.0);
                for (std::int64_t b = 0; b < batch; ++b)
                    if (m_base.kind != ValueKind::Masked || specifiedAt(m_base, first + b))
                        seeds[at(b * cols + first + b)] = 1.0; // an unspecified output has no gradient
                const auto gradients = backward(m_expression, m_tape, seeds, batch);
                for (const auto &[name, g] : gradients) {
                    const auto found = jacobians.find(name);
                    if (found == jacobians.end())
                        continue;
                    // Row by row of the Jacobian: each row takes `batch` adjacent entries, where a
                    // column at a time wrote one entry per 4.6 KiB row (and per page) at 24 x 24.
                    const std::int64_t rows = static_cast<std::int64_t>(g.size()) / batch;
                    for (std::int64_t e = 0; e < rows; ++e) {
                        double *row = found->second.data() + e * cols + first;
                        for (std::int64_t b = 0; b < batch; ++b)
                            row[b] = g[at(b * rows + e)];
                    }
                }
                advance(omp_get_thread_num() == 0, batch);
            });
        }
        finishParallel(failure);
        return jacobians;
    }

    InputJacobian full(const std::string &name, const Value &x)
    {
        InputJacobian j{name, x.shape, x.numel(), m_base.numel(), {}, {}, 0.0, {}, {}, {}};
        j.numerical = zeroedBuffer<double>(at(j.rows * j.cols));
        j.analytical = std::move(m_analytical.at(name));
        // Rows are independent: each thread perturbs its own copy of the input.
        std::exception_ptr failure;
#pragma omp parallel if (j.rows * j.cols >= 256)
        {
            // Not a structured binding: clang 14 cannot capture one in the lambda below.
            auto local = perturbedCopy(name, x);
            Vector direction(at(j.rows), 0.0);
#pragma omp for schedule(dynamic, 4)
            for (std::int64_t e = 0; e < j.rows; ++e) {
                guarded(failure, [&] {
                    if (perturbable(x, e)) {
                        direction[at(e)] = 1.0;
                        centralDifference(*local.value, direction, local.inputs,
                                          std::span<double>(j.numerical.data() + e * j.cols, at(j.cols)));
                        direction[at(e)] = 0.0;
                    }
                    advance(omp_get_thread_num() == 0);
                });
            }
        }
        finishParallel(failure);
        compare(j);
        return j;
    }

    InputJacobian projected(const std::string &name, const Value &x)
    {
        std::mt19937_64 rng(m_options.seed + std::hash<std::string>{}(name));
        std::normal_distribution<double> normal;
        Vector u(at(x.numel())), v(at(m_base.numel()));
        for (std::int64_t e = 0; e < x.numel(); ++e)
            u[at(e)] = perturbable(x, e) ? normal(rng) : 0.0;
        for (std::int64_t k = 0; k < m_base.numel(); ++k)
            v[at(k)] = (m_base.kind == ValueKind::Masked && !specifiedAt(m_base, k)) ? 0.0 : normal(rng);
        Vector ju(at(m_base.numel()));
        auto local = perturbedCopy(name, x);
        centralDifference(*local.value, u, local.inputs, ju);
        const Vector vj = gradientFor(name, v);
        double numerical = 0.0, analytical = 0.0;
        for (std::size_t k = 0; k < v.size(); ++k)
            numerical += v[k] * ju[k];
        for (std::size_t e = 0; e < u.size(); ++e)
            analytical += u[e] * vj[e];
        InputJacobian j{name, x.shape, 1, 1, {numerical}, {analytical}, 0.0, {}, {}, {}};
        compare(j);
        advance(true);
        stopIfCancelled();
        return j;
    }

    void compare(InputJacobian &j) const
    {
        for (std::size_t i = 0; i < j.numerical.size(); ++i) {
            const double difference = std::abs(j.analytical[i] - j.numerical[i]);
            if (!(difference <= j.maxAbsDiff))
                j.maxAbsDiff = difference;
            if (!close(j.analytical[i], j.numerical[i], m_options))
                j.mismatches.push_back({static_cast<std::int64_t>(i) / j.cols, static_cast<std::int64_t>(i) % j.cols});
        }
    }

    // One line per mismatching row (at most a few), saying which mechanism makes it differ.
    void explain(InputJacobian &j, const Value &x) const
    {
        std::vector<std::string> maskedUses, denseUses;
        describeUses(m_expression, j.name, j.uses, maskedUses, denseUses);
        if (j.mismatches.empty())
            return;
        if (m_options.fast) {
            std::ostringstream line;
            line << "the projection vᵀJu differs (numerical " << j.numerical[0] << ", analytical " << j.analytical[0]
                 << "); run the full (not fast) check to see which rows";
            j.explanations.push_back(line.str());
            return;
        }
        constexpr std::size_t kMaxRows = 6;
        std::vector<std::int64_t> rows;
        for (const auto &m : j.mismatches)
            if (rows.empty() || rows.back() != m[0])
                rows.push_back(m[0]);
        for (std::size_t i = 0; i < std::min(rows.size(), kMaxRows); ++i) {
            const std::int64_t r = rows[i];
            const std::string element = j.name + coordinatesOf(r, x.shape);
            std::string line = "row " + std::to_string(r) + " (" + element + "): ";
            if (!specifiedAt(x, r) && !m_options.masked) {
                line += element + " is unspecified; non-masked gradcheck perturbs it like a dense element, but "
                        + projectingUses(j.name, maskedUses) + ", so "
                        + (denseUses.empty() ? "no backward" : "only the non-masked backward of " + joined(denseUses))
                        + " reaches " + element + ": the analytical row misses the paths through the masked uses";
            } else if (!specifiedAt(x, r)) {
                line += element
                        + " is unspecified; masked gradcheck does not perturb it (its numerical row is 0), but the "
                          "non-masked backward of "
                        + (denseUses.empty() ? std::string("no use") : joined(denseUses))
                        + " gives it a gradient: " + projectingUses(j.name, maskedUses) + ", so only that backward reaches "
                        + element + "; sparse_mask(" + j.name + ", mask) around the input makes every use masked";
            } else {
                line += element
                        + " is specified and the Jacobians still differ: a backward on this path does not match "
                          "its forward here, or the function is not smooth at this point (try another eps)";
            }
            j.explanations.push_back(line);
        }
        if (rows.size() > kMaxRows)
            j.explanations.push_back("... and " + std::to_string(rows.size() - kMaxRows) + " more rows");
    }

    const Expression &m_expression;
    std::string_view m_source;
    GradcheckOptions m_options;
    std::vector<EvalInput> m_inputs;
    std::map<std::string, std::shared_ptr<const Value>> m_checked; // non-bool inputs, by name
    Tape m_tape;
    Value m_base;
    std::map<std::string, Buffer<double>> m_analytical;
    ProgressCallback m_progress;
    std::int64_t m_total = 0;
    std::atomic<std::int64_t> m_done{0};
    std::atomic<bool> m_cancelled{false};
    std::atomic<bool> m_failed{false}; // a thread's pass or row threw: the others stop
};

} // namespace

GradcheckReport gradcheck(const Expression &expression,
                          std::string_view source,
                          const std::vector<NamedTensor> &tensors,
                          const GradcheckOptions &options,
                          const ProgressCallback &progress)
{
    return Checker(expression, source, tensors, options, progress).run();
}

} // namespace sparsity::core
