#pragma once
// What tensors an HDF5 file holds, from metadata alone (no element values are read, except
// the two-number `shape` dataset of 10x Genomics groups).
//
// An element is a numeric or bool dataset, or a group in one of the encodings below; encoded
// groups are leaves (their member datasets are not listed separately).
#include "core/io/h5_handle.h"
#include "core/tensor/dtype.h"
#include "core/tensor/layout.h"
#include "core/tensor/shape.h"
#include "core/util/validation_report.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparsity::core {

enum class Encoding {
    Array,        // plain dataset; encoding-type "array" or untagged
    CsrMatrix,    // anndata csr_matrix
    CscMatrix,    // anndata csc_matrix
    CooTensor,    // ours: coo_tensor
    RowSparse,    // ours: row_sparse
    MaskedTensor, // ours: masked_tensor
    TenX,         // 10x Genomics CSC: data/indices/indptr + shape dataset
    H5Sparse,     // h5sparse: attrs h5sparse_format / h5sparse_shape
};

std::string_view encodingName(Encoding encoding);

struct ElementInfo {
    std::string path;
    Encoding encoding = Encoding::Array;
    Layout layout = Layout::Dense; // of the data; masked tensors report their data's layout
    bool masked = false;
    bool tagged = false; // carries an encoding-type attribute
    Shape shape;
    DType dtype = DType::Float32;    // of the stored values
    std::optional<std::int64_t> nnz; // stored values of sparse encodings
};

// nullopt for a plain group or a non-tensor object. Throws InputError for a tensor encoding
// whose metadata is unusable (missing shape attribute, negative extents).
std::optional<ElementInfo> describeElement(const H5File &file, const std::string &path);
// Throws InputError "dataset not found" / "is not a numeric tensor".
ElementInfo requireElement(const H5File &file, const std::string &path);
// Every element in the file, depth first in link order, each object once however many links
// reach it (a link back to a group being walked is not followed). `notes`, when given, gets a
// note for each link skipped: one repeating an object already listed, a dangling link, a
// non-numeric dataset.
std::vector<ElementInfo> listElements(const H5File &file, ValidationReport *notes = nullptr);
// `paths` resolved with requireElement(), or every element when `paths` is empty (then a
// file without any is an InputError).
std::vector<ElementInfo>
selectElements(const H5File &file, const std::vector<std::string> &paths, ValidationReport *notes = nullptr);
// Names of the links in group `path`, in creation order when the file tracks it, else by name.
std::vector<std::string> childNames(const H5File &file, const std::string &path);

} // namespace sparsity::core
