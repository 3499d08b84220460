#pragma once
// The GPU dispatch table (ATen's stub pattern). Core code calls kernels through it; the
// optional sparsity_cuda target provides the CUDA implementation. This header is plain C++17
// so .cu files can include it.
#include "core/masked/elementwise_program.h"
#include "core/optim/optimizer_options.h"

#include <cstdint>
#include <string>

namespace sparsity::core {

struct GpuProbe {
    int deviceCount = 0;
    std::string description; // "NVIDIA H100 (sm_90, 79 GiB)" or why there is none
};

// One step's pattern, as UpdatePattern holds it (host memory).
template <class T>
struct GpuPatternView {
    int kind = 0; // 0 all elements, 1 rows, 2 elements
    std::int64_t rowWidth = 1;
    const std::int64_t *indices = nullptr; // rows or linear element indices
    std::int64_t indexCount = 0;
    const T *values = nullptr;
    std::int64_t valueCount = 0;
};

// A run of optimizer steps: host arrays are uploaded once, every pattern is applied in order
// with the formulas of core/optim/update_rules.h, and the results are copied back.
template <class T>
struct GpuStepJob {
    OptimizerOptions options;
    T *param = nullptr;
    T *state0 = nullptr;
    T *state1 = nullptr;
    std::int64_t numel = 0;
    std::int64_t *lastUpdate = nullptr; // one per row
    std::int64_t rows = 0;
    std::int64_t *step = nullptr; // in: steps taken so far; out: after the run
    const GpuPatternView<T> *patterns = nullptr;
    std::int64_t patternCount = 0;
};

// An ElementwiseProgram (host pointers) for the GPU interpreter: every non-broadcast leaf has
// `numel` elements.
template <class T>
struct GpuProgramView {
    const Instruction *instructions = nullptr;
    int instructionCount = 0;
    const ProgramLeaf<T> *leaves = nullptr;
    int leafCount = 0;
    ProgramOperand result;
    std::int64_t numel = 0;
};

// The program's values as [outer, n, inner] reduced over n (core/masked/reduction_kernels.h):
// per output, the raw accumulator (sum, sum of squares, or extreme) and the count of the
// elements taken (specified ones when `mask` is given). The caller finishes mean and norm.
template <class T>
struct GpuReduceJob {
    GpuProgramView<T> program;
    const std::uint8_t *mask = nullptr;
    int op = 0; // ReduceOp
    std::int64_t outer = 1, n = 0, inner = 1;
    double *accumulators = nullptr; // outer * inner
    std::int64_t *counts = nullptr; // outer * inner
};

struct GpuBackend {
    GpuProbe (*probe)();
    // Makes device `ordinal`'s context and a first allocation: what the first kernel call
    // would otherwise pay inside the work it times. Every later call, on any thread, runs on
    // that device.
    bool (*initContext)(int ordinal, std::string *error);
    // Dense row-major [rows x cols] -> CSR. indptr has rows+1 entries; indices/values are
    // allocated by the callee with new[] (nnz entries). Returns false and sets `error` on
    // a CUDA failure.
    bool (*denseToCsrF32)(const float *dense,
                          std::int64_t rows,
                          std::int64_t cols,
                          std::int64_t *indptr,
                          std::int64_t **indices,
                          float **values,
                          std::string *error);
    bool (*denseToCsrF64)(const double *dense,
                          std::int64_t rows,
                          std::int64_t cols,
                          std::int64_t *indptr,
                          std::int64_t **indices,
                          double **values,
                          std::string *error);
    bool (*optimizerStepsF32)(const GpuStepJob<float> &job, std::string *error);
    bool (*optimizerStepsF64)(const GpuStepJob<double> &job, std::string *error);
    // Sparsifier kernels on host arrays (uploaded, computed, downloaded), float32 data:
    // threshold mask + squashed values, N:M mask, data-norm block scores (avg of |x| or x²
    // per block, row-major over the block grid, edge blocks over their real entries).
    bool (*thresholdSquashF32)(
        const float *x, float *y, std::uint8_t *mask, std::int64_t count, float threshold, std::string *error);
    bool (*nmMaskF32)(
        const float *x, std::uint8_t *mask, std::int64_t groups, std::int64_t n, std::int64_t m, std::string *error);
    bool (*blockScoresF32)(const float *x,
                           float *scores,
                           std::int64_t height,
                           std::int64_t width,
                           std::int64_t blockRows,
                           std::int64_t blockCols,
                           bool l2,
                           std::string *error);
    // The expression evaluator's fused elementwise programs and reductions over them.
    bool (*evaluateProgramF32)(const GpuProgramView<float> &program, float *out, std::string *error);
    bool (*evaluateProgramF64)(const GpuProgramView<double> &program, double *out, std::string *error);
    bool (*reduceProgramF32)(const GpuReduceJob<float> &job, std::string *error);
    bool (*reduceProgramF64)(const GpuReduceJob<double> &job, std::string *error);
};

// nullptr when the build has no CUDA backend.
const GpuBackend *gpuBackend();

} // namespace sparsity::core
