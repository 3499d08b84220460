#pragma once
// Reads one element of an HDF5 file into a Tensor: plain datasets of any rank and numeric
// dtype, anndata csr/csc, 10x Genomics CSC, h5sparse, and our coo_tensor, row_sparse and
// masked_tensor. Values are read into the compute type (computeTypeFor) with a notice when
// that converts. Every sparse element is validated against its layout's invariants; an error
// names "file:/dataset" and the invariant.
#include "core/io/h5_catalog.h"
#include "core/tensor/tensor.h"
#include "core/util/validation_report.h"

#include <optional>

namespace sparsity::core {

struct RowRange {
    std::int64_t begin = 0;
    std::int64_t end = 0; // exclusive
};

// `rows` reads rows [begin, end) along dim 0 by hyperslab; dense and CSR elements only.
Tensor readTensor(const H5File &file,
                  const std::string &path,
                  ValidationReport *report = nullptr,
                  std::optional<RowRange> rows = std::nullopt);

// Number of nonzero (unmasked) or specified (masked) elements, read in row chunks so memory
// stays bounded; for `inspect --count`.
std::int64_t countNonzeros(const H5File &file, const ElementInfo &element);

} // namespace sparsity::core
