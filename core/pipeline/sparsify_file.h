#pragma once
// One `sparsity sparsify` run: every chosen element of IN gets the method's mask and is
// written to OUT under its own path in the chosen layout:
//   dense      values * mask (what squashing the mask gives)
//   masked     the original values with the mask (masked_tensor, true = kept)
//   coo/csr/csc/row_sparse   the squashed values in that layout (zeros dropped)
// Every element is checked against its method and the layout before anything is written.
// An element named in perDataset gets that sparsifier instead of `config`.
// Dense datasets, and unmasked elements of other layouts larger than the memory limit, go
// through the block pipeline (core/pipeline/sparsify_blocks.h): bounded by the memory limit,
// the same file and report as in memory. A threshold of a sparse element into a sparse layout
// is computed on its stored values (core/pipeline/sparsify_stored_values.h) when they fit the
// limit. Masked_tensors (and an element a saved state holds) are read whole and must fit the
// limit.
#include "core/device/device.h"
#include "core/io/h5_writer.h"
#include "core/sparsify/sparsifier_config.h"
#include "core/tensor/histogram.h"
#include "core/tensor/layout.h"
#include "core/util/memory_budget.h"
#include "core/util/progress.h"
#include "core/util/validation_report.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sparsity::core {

struct SparsifyRequest {
    std::string input;
    std::string output;
    SparsifierConfig config;
    std::map<std::string, SparsifierConfig> perDataset; // element path ("/W") -> its own sparsifier
    std::vector<std::string> datasets;                  // empty: every element
    Layout layout = Layout::Dense;
    bool masked = false;                     // --layout masked
    std::optional<std::int64_t> memoryLimit; // bytes; nullopt: auto (core/util/memory_budget.h)
    bool saveState = false;                  // also write /sparsifier_state (data_sparsifier_state)
    DeviceChoice device = DeviceChoice::Cpu; // cuda: threshold, n-m and data-norm scores on the GPU (float32)
    WriteOptions writeOptions;

    // The sparsifier of the element at `path`: its own, or `config`.
    const SparsifierConfig &configFor(const std::string &path) const;
};

struct SparsifiedElement {
    std::string path;
    Shape shape;
    std::int64_t nnzBefore = 0; // nonzero elements of the input
    std::int64_t nnzAfter = 0;  // nonzero elements kept
    // Elements that hold data: every element, or a masked input's specified ones (unspecified
    // ones hold none: the mask never keeps them, so they stay unspecified, as in MaskedTensor).
    std::int64_t held = 0;
    std::int64_t pruned = 0; // elements holding data the mask removes
    double sparsity = 0.0;   // pruned / held
    std::int64_t blocksRemoved = 0;
    bool streamed = false;
    // Computed on the stored values alone (threshold of a sparse element into a sparse layout:
    // core/pipeline/sparsify_stored_values.h); the same file and report.
    bool storedValuesOnly = false;
    // Where its mask was computed, and the seconds taken to bring that device up when this
    // element was its first work there (in neither timing below).
    Device device = Device::Cpu;
    double deviceInitSeconds = 0.0;
    std::optional<Histogram> histogramBefore, histogramAfter; // in-memory runs (32 bins, same range)
    double computeSeconds = 0.0;
    double ioSeconds = 0.0;
};

std::vector<SparsifiedElement>
sparsifyFile(const SparsifyRequest &request, ValidationReport &report, const ProgressCallback &progress = {});

} // namespace sparsity::core
