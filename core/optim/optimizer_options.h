#pragma once
// What an optimizer step is asked to do: optimizer, semantics, rule and hyperparameters.
//
// resolveOptions() fills the rule's defaults (docs/CLI.md, "step") and refuses, by name, every value
// and combination that the rule's reference refuses or does not have (docs/SEMANTICS.md):
//  * lr < 0, eps <= 0, betas outside [0, 1), negative momentum/weight decay/lr decay;
//  * options the optimizer or rule has no notion of (--beta1 for sgd, --clip-gradient under
//    the torch rule, --nesterov under mxnet, ...);
//  * torch lazy Adagrad or lazy Adam (SparseAdam) with weight decay, mxnet lazy AdaGrad with
//    weight decay, nesterov without momentum or with dampening.
#include <optional>
#include <string>
#include <string_view>

namespace sparsity::core {

enum class OptimizerKind { Sgd, Adam, Adagrad };
enum class Semantics { Dense, Lazy, Masked };
enum class Rule { Torch, Mxnet };

std::string_view optimizerName(OptimizerKind kind);
std::string_view semanticsName(Semantics semantics);
std::string_view ruleName(Rule rule);
// Throw InputError naming the valid choices.
OptimizerKind parseOptimizer(std::string_view name);
Semantics parseSemantics(std::string_view name);
Rule parseRule(std::string_view name);

// Values as the user gave them; unset means "the rule's default".
struct HyperparameterInput {
    std::optional<double> lr, eps, weightDecay, momentum, beta1, beta2, lrDecay, initialAccumulatorValue, clipGradient,
        rescaleGrad, dampening;
    bool nesterov = false;
};

struct Hyperparameters {
    double lr = 0, eps = 0, weightDecay = 0, momentum = 0, beta1 = 0, beta2 = 0, lrDecay = 0;
    double initialAccumulatorValue = 0;
    double clipGradient = -1; // mxnet: clipping off when negative
    double rescaleGrad = 1;
    double dampening = 0;
    bool nesterov = false;
};

struct OptimizerOptions {
    OptimizerKind kind = OptimizerKind::Adagrad;
    Semantics semantics = Semantics::Dense;
    Rule rule = Rule::Torch;
    Hyperparameters hp;
};

// Which hyperparameters an optimizer has under a rule (the reference's parameter lists):
// resolveOptions refuses the others by name, and the desktop app's form offers these alone.
struct OptimizerParameterSet {
    bool eps, weightDecay, momentum, betas, lrDecay, initialAccumulator, clipRescale, dampeningNesterov;
};
OptimizerParameterSet parametersOf(OptimizerKind kind, Rule rule);
// Whether lazy semantics take weight decay: only mxnet's lazy sgd and adam (which decay the
// rows they update). torch's sparse optimizers and mxnet's sparse adagrad have none, and
// resolveOptions refuses a nonzero one.
bool lazyTakesWeightDecay(OptimizerKind kind, Rule rule);

OptimizerOptions resolveOptions(OptimizerKind kind, Semantics semantics, Rule rule, const HyperparameterInput &input);

} // namespace sparsity::core
