// Timing driver for bench_foundation.py: times our side of each hot path on a file the
// Python side also uses, and prints one JSON object. Best of N runs, wall clock.
//
//   bench_foundation read FILE DATASET N          HDF5 read of a whole dataset
//   bench_foundation dense-to-csr FILE DATASET N  dense -> CSR conversion (in memory)
#include "core/io/h5_reader.h"
#include "core/tensor/conversions.h"
#include "core/util/allocator_tuning.h"
#include "core/util/errors.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <omp.h>
#include <string>

using namespace sparsity;

namespace {

template <class F>
double bestOf(int runs, F &&f)
{
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

} // namespace

int main(int argc, char **argv)
{
    sparsity::core::retainFreedHeapMemory();
    if (argc != 5) {
        std::cerr << "usage: bench_foundation {read|dense-to-csr} FILE DATASET RUNS\n";
        return 2;
    }
    const std::string mode = argv[1];
    const std::string path = argv[2];
    const std::string dataset = argv[3];
    const int runs = std::stoi(argv[4]);
    try {
        const auto file = core::H5File::openRead(path);
        nlohmann::ordered_json out{{"mode", mode}, {"threads", omp_get_max_threads()}};
        if (mode == "read") {
            std::int64_t count = 0;
            out["seconds"] = bestOf(runs, [&] { count = core::readTensor(file, dataset).storedCount(); });
            out["elements"] = count;
        } else if (mode == "dense-to-csr") {
            const auto tensor = core::readTensor(file, dataset);
            const auto &dense = std::get<core::DenseTensor<float>>(tensor.storage());
            std::int64_t nnz = 0;
            out["seconds"] = bestOf(runs, [&] { nnz = core::denseToCompressed(dense, core::CompressedAxis::Row).nnz(); });
            out["nnz"] = nnz;
        } else {
            std::cerr << "error: unknown mode " << mode << '\n';
            return 2;
        }
        std::cout << out.dump() << '\n';
    } catch (const core::Error &error) {
        std::cerr << "error: " << error.what() << '\n';
        return error.exitCode();
    }
    return 0;
}
