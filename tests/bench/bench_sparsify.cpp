// Timing driver for bench_sparsify.py: a sparsifier's mask (and the squashed tensor) on data
// the Python side also uses. Prints one JSON object.
//
//   bench_sparsify threshold FILE DATASET T RUNS          mask = |x| >= T; y = x * mask
//   bench_sparsify threshold-report FILE DATASET T RUNS   what the command computes per element:
//                                                         the range pass, then mask, squash in
//                                                         place and the report in one pass
//   bench_sparsify data-norm FILE DATASET LEVEL RUNS      DataNormSparsifier 1x4, L1
//   bench_sparsify memcpy FILE DATASET 0 RUNS             a plain copy of the same bytes
#include "core/io/h5_reader.h"
#include "core/sparsify/data_sparsifier.h"
#include "core/sparsify/mask_kernels.h"
#include "core/sparsify/sparsify_tally.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/allocator_tuning.h"
#include "core/util/errors.h"

#include <chrono>
#include <cstring>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <omp.h>

using namespace sparsity;

int main(int argc, char **argv)
{
    sparsity::core::retainFreedHeapMemory();
    if (argc != 6) {
        std::cerr << "usage: bench_sparsify {threshold|threshold-report|data-norm|memcpy} FILE DATASET PARAM RUNS\n";
        return 2;
    }
    const std::string mode = argv[1];
    const double parameter = std::stod(argv[4]);
    const int runs = std::stoi(argv[5]);
    try {
        const auto x = core::toDenseAs<float>(core::readTensor(core::H5File::openRead(argv[2]), argv[3]));
        const auto n = x.numel();
        double best = std::numeric_limits<double>::infinity();
        std::int64_t kept = 0;
        for (int run = 0; run < runs; ++run) {
            // Outputs are allocated inside the timed region, as torch allocates its results;
            // the kept count (a check, not part of the work) is taken after the clock stops.
            core::Mask mask;
            auto start = std::chrono::steady_clock::now();
            if (mode == "threshold") {
                mask.resize(static_cast<std::size_t>(n));
                core::Buffer<float> y(static_cast<std::size_t>(n));
                core::thresholdSquash(x.values.data(), y.data(), mask.data(), n, static_cast<float>(parameter));
            } else if (mode == "threshold-report") {
                // On a fresh copy each run (squashing is in place); the copy is not timed.
                core::Buffer<float> y(static_cast<std::size_t>(n));
                std::memcpy(y.data(), x.values.data(), static_cast<std::size_t>(n) * sizeof(float));
                mask.resize(static_cast<std::size_t>(n));
                start = std::chrono::steady_clock::now();
                core::FiniteRange range;
                core::finiteRangeOf(y.data(), n, range);
                core::SparsifyTally tally(range.bounds());
                core::thresholdAndTally(y.data(), mask.data(), n, static_cast<float>(parameter), true, tally);
            } else if (mode == "data-norm") {
                core::SparsifierConfig c;
                c.method = core::SparsifierMethod::DataNorm;
                c.sparsityLevel = parameter;
                mask = core::computeMask(core::Tensor(core::Storage{x}), c);
            } else if (mode == "memcpy") {
                core::Buffer<float> y(static_cast<std::size_t>(n));
                std::memcpy(y.data(), x.values.data(), static_cast<std::size_t>(n) * sizeof(float));
            } else {
                std::cerr << "error: unknown mode " << mode << '\n';
                return 2;
            }
            best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            kept = mask.empty() ? n : core::countKept(mask.data(), n);
        }
        std::cout << nlohmann::ordered_json{{"mode", mode}, {"threads", omp_get_max_threads()}, {"seconds", best}, {"kept", kept}}
                         .dump()
                  << '\n';
    } catch (const core::Error &error) {
        std::cerr << "error: " << error.what() << '\n';
        return error.exitCode();
    }
    return 0;
}
