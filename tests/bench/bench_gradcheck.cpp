// Timing driver for bench_gradcheck.py: gradcheck of softmax(mm(x, w), 1) on /x and /w of
// FILE, full Jacobians or fast mode, best of RUNS. Prints one JSON object.
//
//   bench_gradcheck FILE {full|fast} RUNS
#include "core/autograd/gradcheck.h"
#include "core/io/h5_reader.h"
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
        std::cerr << "usage: bench_gradcheck FILE {full|fast} RUNS\n";
        return 2;
    }
    const std::string expression = "softmax(mm(x, w), 1)";
    core::GradcheckOptions options;
    options.fast = std::string(argv[2]) == "fast";
    const int runs = std::stoi(argv[3]);
    try {
        const auto file = core::H5File::openRead(argv[1]);
        const std::vector<core::NamedTensor> inputs{{"x", core::readTensor(file, "/x"), false},
                                                    {"w", core::readTensor(file, "/w"), false}};
        const auto parsed = core::parseExpression(expression);
        double best = std::numeric_limits<double>::infinity();
        bool passed = false;
        for (int run = 0; run < runs; ++run) {
            const auto start = std::chrono::steady_clock::now();
            passed = core::gradcheck(*parsed, expression, inputs, options).passed;
            best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        std::cout << nlohmann::ordered_json{{"threads", omp_get_max_threads()}, {"seconds", best}, {"passed", passed}}.dump()
                  << '\n';
    } catch (const core::Error &error) {
        std::cerr << "error: " << error.what() << '\n';
        return error.exitCode();
    }
    return 0;
}
