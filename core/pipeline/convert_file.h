#pragma once
// Converting the tensors of one HDF5 file into another layout: the work behind
// `sparsity convert`, usable from the GUI's export too.
//
// All chosen elements are checked against the target layout before anything is read, so a
// file with one element the layout cannot hold fails naming it and writes nothing. The output
// is written atomically; it must not be the input.
#include "core/io/h5_writer.h"
#include "core/tensor/layout.h"
#include "core/util/progress.h"
#include "core/util/validation_report.h"

#include <optional>
#include <string>
#include <vector>

namespace sparsity::core {

struct ConvertRequest {
    std::string input;
    std::string output;
    Layout layout = Layout::Dense;
    std::vector<std::string> datasets; // empty: every element of the input
    bool keepOthers = false;           // the input's other elements are copied unchanged
    WriteOptions writeOptions;
    std::optional<std::int64_t> memoryLimit; // bytes; nullopt: auto. Dense inputs larger stream in row blocks
};

struct ConvertedElement {
    std::string path;
    std::int64_t storedBefore = 0;
    std::int64_t storedAfter = 0;
    bool copied = false; // kept as it was (keepOthers), not converted
};

std::vector<ConvertedElement>
convertFile(const ConvertRequest &request, ValidationReport &report, const ProgressCallback &progress = {});

} // namespace sparsity::core
