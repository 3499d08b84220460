// Timing driver for bench_optim.py: optimizer steps on data the Python side also uses.
//
//   bench_optim MODE FILE RUNS     MODE: lazy-adagrad | sparse-adam | masked-adagrad | dense-adam
//
// FILE holds /param and /grads/<k>. Each run starts from the same parameter with fresh state
// and applies every gradient, timing what `sparsity step` counts as compute: state
// allocation, the update pattern (coalescing) and the fused update. Prints one JSON object
// with the best time, the bytes a step must touch at least, and the checksum of the result.
#include "core/io/h5_reader.h"
#include "core/optim/optimizer_step.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/allocator_tuning.h"
#include "core/util/errors.h"

#include <chrono>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <omp.h>

using namespace sparsity;

int main(int argc, char **argv)
{
    sparsity::core::retainFreedHeapMemory();
    if (argc != 4) {
        std::cerr << "usage: bench_optim MODE FILE RUNS\n";
        return 2;
    }
    const std::string mode = argv[1];
    const int runs = std::stoi(argv[3]);
    try {
        const auto file = core::H5File::openRead(argv[2]);
        const auto param0 = core::toDenseAs<float>(core::readTensor(file, "/param"));
        std::vector<core::NamedGradient> grads;
        for (int k = 0; core::linkExists(file.id(), "/grads/" + std::to_string(k)); ++k)
            grads.push_back({"/grads/" + std::to_string(k), core::readTensor(file, "/grads/" + std::to_string(k))});

        core::OptimizerKind kind = core::OptimizerKind::Adagrad;
        core::Semantics semantics = core::Semantics::Lazy;
        core::HyperparameterInput hp;
        hp.lr = 0.1;
        if (mode == "sparse-adam") {
            kind = core::OptimizerKind::Adam;
            hp.lr = 0.01;
        } else if (mode == "masked-adagrad") {
            semantics = core::Semantics::Masked;
            hp.initialAccumulatorValue = 0.5;
        } else if (mode == "dense-adam") {
            kind = core::OptimizerKind::Adam;
            semantics = core::Semantics::Dense;
            hp.lr = 0.01;
        } else if (mode != "lazy-adagrad") {
            std::cerr << "error: unknown mode " << mode << '\n';
            return 2;
        }
        const auto options = core::resolveOptions(kind, semantics, core::Rule::Torch, hp);
        double best = std::numeric_limits<double>::infinity();
        double bestSteps = best;
        double checksum = 0;
        using Clock = std::chrono::steady_clock;
        for (int run = 0; run < runs; ++run) {
            auto param = param0; // copied outside the timed region
            const auto start = Clock::now();
            auto state = core::initialState<float>(options, param.shape);
            const auto allocated = Clock::now();
            core::runSteps(param, state, options, grads, nullptr);
            const auto end = Clock::now();
            best = std::min(best, std::chrono::duration<double>(end - start).count());
            bestSteps = std::min(bestSteps, std::chrono::duration<double>(end - allocated).count());
            checksum = 0;
            for (float v : param.values)
                checksum += static_cast<double>(v);
        }
        // Lower bound of memory traffic per run: read+write param and each state on the touched
        // elements, read the gradient values (duplicates included).
        std::int64_t touched = 0, gradValues = 0;
        for (const auto &g : grads) {
            gradValues += g.tensor.storedCount();
            touched += semantics == core::Semantics::Dense
                           ? param0.numel()
                           : core::buildUpdatePattern<float>(g.tensor, semantics, nullptr).touchedElements();
        }
        const auto states = static_cast<std::int64_t>(core::stateNames(options).size());
        const double bytes =
            4.0 * (static_cast<double>(touched) * 2.0 * static_cast<double>(1 + states) + static_cast<double>(gradValues));
        nlohmann::ordered_json out{{"mode", mode},       {"threads", omp_get_max_threads()},
                                   {"seconds", best},    {"steps_seconds", bestSteps},
                                   {"min_bytes", bytes}, {"checksum", checksum}};
        std::cout << out.dump() << '\n';
    } catch (const core::Error &error) {
        std::cerr << "error: " << error.what() << '\n';
        return error.exitCode();
    }
    return 0;
}
