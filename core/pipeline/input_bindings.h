#pragma once
// The named inputs of `eval` and `gradcheck` (a name bound to a file's dataset): checking the
// bindings and that an expression uses only bound names (before any file is opened), and
// reading the bound tensors. Front ends build the bindings (the CLI from its
// NAME=FILE.h5:PATH arguments, the desktop app from its choosers); nothing here parses text.
#include "core/expr/evaluator.h"
#include "core/tensor/dtype.h"
#include "core/util/validation_report.h"

#include <string>
#include <vector>

namespace sparsity::core {

struct InputBinding {
    std::string name;
    std::string file;
    std::string path;
};

struct BoundInput {
    InputBinding binding;
    Shape shape;
    Layout layout = Layout::Dense;
    DType dtype = DType::Float32; // as stored
    bool masked = false;
    std::int64_t specified = 0;
    bool readsByRows = false; // readTensor reads it a range of rows at a time (readableByRows)
    // An unmasked csr, row_sparse or coo (entries' rows ascending) element, densified a block of
    // rows at a time (core/pipeline/densified_rows.h, RowRead::ByRows); or, bandBytes > 0, a csc
    // or a coo whose rows go back, whose blocks are densified from bands of its rows of at most
    // bandBytes each (a reader's), each band read once and held coalesced (RowRead::ByBands).
    bool densifiesByRows = false;
    std::int64_t bandBytes = 0;
};

// Refuses a name that is not an identifier, an empty file or path, duplicate names and an
// `output` equal to an input file, and checks that `expression` uses only bound names (error
// with the column otherwise).
std::vector<BoundInput> bindInputs(const std::vector<InputBinding> &bindings,
                                   const Expression &expression,
                                   std::string_view source,
                                   const std::string &output = {});

// Fills in the inputs' shapes, layouts, dtypes and stored counts from their files' metadata,
// reading no values (whether the evaluation can stream is decided on these). A csc or a coo whose
// rows go back densifies by bands of its share of `bandBudget` where it can (readableByBands;
// past kMostScannedBands bands it is spilled sorted by row first, once; bands of less where
// it is worth spilling anyway, bandBytesFor): the bands of every such input, two readers each,
// and their shared counts of each row's entries hold `bandBudget` together at most (0: none is
// read by bands).
void describeBoundInputs(std::vector<BoundInput> &inputs, std::int64_t bandBudget = 0);

// Reads the bound tensors (bool datasets become masks, without a conversion notice) and fills
// in their shapes, layouts and dtypes.
std::vector<NamedTensor> readBoundInputs(std::vector<BoundInput> &inputs, ValidationReport &report);

} // namespace sparsity::core
