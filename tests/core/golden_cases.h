#pragma once
// Loading the optimizer golden cases of tests/data/golden/optim.h5 (see
// tests/reference/make_optim_golden.py), shared by the CPU golden test and the GPU test.
#include "core/io/h5_attributes.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/optim/optimizer_step.h"
#include "core/tensor/tensor_ops.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace sparsity::test {

inline const std::string kOptimGolden = SPARSITY_TEST_DATA_DIR "/golden/optim.h5";

struct GoldenCase {
    std::string name;
    core::OptimizerOptions options;
    core::HyperparameterInput hyperparameters; // as given, before the rule's defaults
    core::DenseTensor<float> param;
    std::vector<core::NamedGradient> grads;
    std::optional<core::Tensor> mask;
};

inline std::vector<std::string> goldenCaseNames(const core::H5File &file) { return core::childNames(file, "/"); }

inline core::HyperparameterInput hyperparameters(const nlohmann::json &o)
{
    core::HyperparameterInput in;
    auto opt = [&](const char *key, std::optional<double> &slot) {
        if (o.contains(key))
            slot = o.at(key).get<double>();
    };
    opt("lr", in.lr);
    opt("eps", in.eps);
    opt("weight_decay", in.weightDecay);
    opt("momentum", in.momentum);
    opt("beta1", in.beta1);
    opt("beta2", in.beta2);
    opt("lr_decay", in.lrDecay);
    opt("initial_accumulator_value", in.initialAccumulatorValue);
    opt("clip_gradient", in.clipGradient);
    opt("rescale_grad", in.rescaleGrad);
    opt("dampening", in.dampening);
    in.nesterov = o.value("nesterov", false);
    return in;
}

inline GoldenCase loadGoldenCase(const core::H5File &file, const std::string &name)
{
    const std::string base = "/" + name;
    core::H5Handle group(H5Gopen2(file.id(), base.c_str(), H5P_DEFAULT), H5Gclose);
    const auto json = nlohmann::json::parse(*core::readStringAttribute(group.id(), "options"));
    GoldenCase c;
    c.name = name;
    c.hyperparameters = hyperparameters(json);
    c.options = core::resolveOptions(core::parseOptimizer(json.at("optimizer").get<std::string>()),
                                     core::parseSemantics(json.at("semantics").get<std::string>()),
                                     core::parseRule(json.at("rule").get<std::string>()), c.hyperparameters);
    c.param = core::toDenseAs<float>(core::readTensor(file, base + "/param"));
    const auto steps = core::readIntArrayAttribute(group.id(), "steps")->at(0);
    for (std::int64_t k = 0; k < steps; ++k)
        c.grads.push_back({name + "/grads/" + std::to_string(k), core::readTensor(file, base + "/grads/" + std::to_string(k))});
    if (core::linkExists(file.id(), base + "/mask"))
        c.mask = core::readTensor(file, base + "/mask");
    return c;
}

} // namespace sparsity::test
