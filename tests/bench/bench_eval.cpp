// Timing driver for bench_eval.py: one expression over masked inputs x and y (data /x and /y,
// shared mask /m) from FILE, best of RUNS. Prints one JSON object with the time and a
// checksum (sum and count of the specified result elements) the Python side compares.
//
//   bench_eval FILE EXPRESSION RUNS
#include "core/expr/evaluator.h"
#include "core/io/h5_reader.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/allocator_tuning.h"
#include "core/util/errors.h"

#include <chrono>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <omp.h>

using namespace sparsity;

namespace {

core::Tensor maskedInput(const core::H5File &file, const std::string &data, const core::Mask &mask)
{
    core::Tensor tensor = core::readTensor(file, data);
    tensor.setMask(mask);
    return tensor;
}

} // namespace

int main(int argc, char **argv)
{
    sparsity::core::retainFreedHeapMemory();
    if (argc != 4) {
        std::cerr << "usage: bench_eval FILE EXPRESSION RUNS\n";
        return 2;
    }
    const std::string expression = argv[2];
    const int runs = std::stoi(argv[3]);
    try {
        const auto file = core::H5File::openRead(argv[1]);
        const auto maskValues = core::toDenseDouble(core::readTensor(file, "/m"));
        core::Mask mask(maskValues.values.size());
        for (std::size_t i = 0; i < mask.size(); ++i)
            mask[i] = maskValues.values[i] != 0.0;
        // Built once, outside the timing, as the torch side builds its MaskedTensors once.
        const auto inputs =
            core::makeEvalInputs({{"x", maskedInput(file, "/x", mask), false}, {"y", maskedInput(file, "/y", mask), false}});
        const auto parsed = core::parseExpression(expression);
        double best = std::numeric_limits<double>::infinity();
        core::AnyValue result;
        for (int run = 0; run < runs; ++run) {
            const auto start = std::chrono::steady_clock::now();
            result = core::evaluateExpression(*parsed, expression, inputs);
            best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        const auto &value = std::get<core::MaskedValue<float>>(result);
        double checksum = 0.0;
        std::int64_t specified = 0;
        for (std::int64_t i = 0; i < value.numel(); ++i)
            if (value.specified(i)) {
                checksum += static_cast<double>(value.values[static_cast<std::size_t>(i)]);
                ++specified;
            }
        std::cout << nlohmann::ordered_json{{"threads", omp_get_max_threads()},
                                            {"seconds", best},
                                            {"checksum", checksum},
                                            {"specified", specified}}
                         .dump()
                  << '\n';
    } catch (const core::Error &error) {
        std::cerr << "error: " << error.what() << '\n';
        return error.exitCode();
    }
    return 0;
}
