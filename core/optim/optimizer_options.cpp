#include "core/optim/optimizer_options.h"

#include "core/util/choices.h"
#include "core/util/errors.h"

#include <vector>

namespace sparsity::core {
namespace {

void refuseUnsupported(const char *option, bool given, bool allowed, OptimizerKind kind, Rule rule)
{
    if (given && !allowed)
        throw InputError(std::string(option) + " is not an option of " + std::string(optimizerName(kind)) + " under the "
                         + std::string(ruleName(rule)) + " rule");
}

} // namespace

OptimizerParameterSet parametersOf(OptimizerKind kind, Rule rule)
{
    const bool torch = rule == Rule::Torch;
    switch (kind) {
    case OptimizerKind::Sgd:
        return {false, true, true, false, false, false, !torch, torch};
    case OptimizerKind::Adam:
        return {true, true, false, true, false, false, !torch, false};
    case OptimizerKind::Adagrad:
        return {true, true, false, false, torch, torch, !torch, false};
    }
    return {};
}

bool lazyTakesWeightDecay(OptimizerKind kind, Rule rule) { return rule == Rule::Mxnet && kind != OptimizerKind::Adagrad; }

std::string_view optimizerName(OptimizerKind kind)
{
    switch (kind) {
    case OptimizerKind::Sgd:
        return "sgd";
    case OptimizerKind::Adam:
        return "adam";
    case OptimizerKind::Adagrad:
        return "adagrad";
    }
    return "?";
}

std::string_view semanticsName(Semantics semantics)
{
    switch (semantics) {
    case Semantics::Dense:
        return "dense";
    case Semantics::Lazy:
        return "lazy";
    case Semantics::Masked:
        return "masked";
    }
    return "?";
}

std::string_view ruleName(Rule rule) { return rule == Rule::Torch ? "torch" : "mxnet"; }

OptimizerKind parseOptimizer(std::string_view name)
{
    return parseChoice<OptimizerKind>(
        "optimizer", name, {{"sgd", OptimizerKind::Sgd}, {"adam", OptimizerKind::Adam}, {"adagrad", OptimizerKind::Adagrad}});
}

Semantics parseSemantics(std::string_view name)
{
    return parseChoice<Semantics>("semantics", name,
                                  {{"dense", Semantics::Dense}, {"lazy", Semantics::Lazy}, {"masked", Semantics::Masked}});
}

Rule parseRule(std::string_view name)
{
    return parseChoice<Rule>("rule", name, {{"torch", Rule::Torch}, {"mxnet", Rule::Mxnet}});
}

OptimizerOptions resolveOptions(OptimizerKind kind, Semantics semantics, Rule rule, const HyperparameterInput &in)
{
    const auto allowed = parametersOf(kind, rule);
    refuseUnsupported("eps", in.eps.has_value(), allowed.eps, kind, rule);
    refuseUnsupported("weight_decay", in.weightDecay.has_value(), allowed.weightDecay, kind, rule);
    refuseUnsupported("momentum", in.momentum.has_value(), allowed.momentum, kind, rule);
    refuseUnsupported("beta1", in.beta1.has_value(), allowed.betas, kind, rule);
    refuseUnsupported("beta2", in.beta2.has_value(), allowed.betas, kind, rule);
    refuseUnsupported("lr_decay", in.lrDecay.has_value(), allowed.lrDecay, kind, rule);
    refuseUnsupported("initial_accumulator_value", in.initialAccumulatorValue.has_value(), allowed.initialAccumulator, kind,
                      rule);
    refuseUnsupported("clip_gradient", in.clipGradient.has_value(), allowed.clipRescale, kind, rule);
    refuseUnsupported("rescale_grad", in.rescaleGrad.has_value(), allowed.clipRescale, kind, rule);
    refuseUnsupported("dampening", in.dampening.has_value(), allowed.dampeningNesterov, kind, rule);
    refuseUnsupported("nesterov", in.nesterov, allowed.dampeningNesterov, kind, rule);

    OptimizerOptions options{kind, semantics, rule, {}};
    auto &hp = options.hp;
    const bool torch = rule == Rule::Torch;
    switch (kind) {
    case OptimizerKind::Adagrad:
        hp.lr = in.lr.value_or(0.01);
        hp.eps = in.eps.value_or(torch ? 1e-10 : 1e-7);
        break;
    case OptimizerKind::Adam:
        hp.lr = in.lr.value_or(1e-3);
        hp.eps = in.eps.value_or(1e-8);
        hp.beta1 = in.beta1.value_or(0.9);
        hp.beta2 = in.beta2.value_or(0.999);
        break;
    case OptimizerKind::Sgd:
        if (!in.lr && torch)
            throw errors::mustBe("lr", "be given for sgd under the torch rule (it has no default)", "none");
        hp.lr = in.lr.value_or(0.01);
        break;
    }
    hp.weightDecay = in.weightDecay.value_or(0.0);
    hp.momentum = in.momentum.value_or(0.0);
    hp.lrDecay = in.lrDecay.value_or(0.0);
    hp.initialAccumulatorValue = in.initialAccumulatorValue.value_or(0.0);
    hp.clipGradient = in.clipGradient.value_or(-1.0);
    hp.rescaleGrad = in.rescaleGrad.value_or(1.0);
    hp.dampening = in.dampening.value_or(0.0);
    hp.nesterov = in.nesterov;

    if (!(hp.lr >= 0))
        throw errors::mustBe("learning rate lr", "be >= 0", errors::number(hp.lr));
    if (allowed.eps && !(hp.eps > 0))
        throw errors::mustBe("eps", "be > 0", errors::number(hp.eps));
    for (const auto &[name, beta] : {std::pair{"beta1", hp.beta1}, std::pair{"beta2", hp.beta2}})
        if (allowed.betas && !(beta >= 0 && beta < 1))
            throw errors::mustBe(name, "be in [0, 1)", errors::number(beta));
    for (const auto &[name, value] :
         {std::pair{"weight_decay", hp.weightDecay}, std::pair{"momentum", hp.momentum}, std::pair{"lr_decay", hp.lrDecay},
          std::pair{"initial_accumulator_value", hp.initialAccumulatorValue}})
        if (!(value >= 0))
            throw errors::mustBe(name, "be >= 0", errors::number(value));
    if (hp.nesterov && (hp.momentum <= 0 || hp.dampening != 0))
        throw InputError("nesterov needs momentum > 0 and zero dampening (PyTorch's rule)");

    const bool lazy = semantics == Semantics::Lazy;
    if (lazy && hp.weightDecay != 0 && !lazyTakesWeightDecay(kind, rule)) {
        if (torch && kind == OptimizerKind::Adagrad)
            throw InputError("weight_decay is not compatible with sparse gradients (torch rule, lazy adagrad): "
                             "use masked or dense semantics, or drop weight_decay");
        if (torch && kind == OptimizerKind::Sgd)
            throw InputError("weight_decay is not compatible with sparse gradients (torch rule, lazy sgd: PyTorch 1.13 "
                             "fails with \"add(sparse, dense) is not supported\"): use masked or dense semantics, or drop "
                             "weight_decay");
        if (torch && kind == OptimizerKind::Adam)
            throw InputError("SparseAdam has no weight_decay (torch rule, lazy adam): "
                             "use masked or dense semantics, or drop weight_decay");
        if (!torch && kind == OptimizerKind::Adagrad)
            throw InputError("sparse adagrad_update does not support wd (mxnet rule, lazy adagrad): "
                             "use dense semantics, or drop weight_decay");
    }
    return options;
}

} // namespace sparsity::core
