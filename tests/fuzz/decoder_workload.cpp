#include "tests/fuzz/decoder_workload.h"

#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace sparsity::fuzz {
namespace {

using namespace sparsity::core;

constexpr std::array kLayouts{Layout::Dense, Layout::Coo, Layout::Csr, Layout::Csc, Layout::RowSparse};

// Converting to another layout allocates for the declared shape (a dense result holds every
// element, CSR one index pointer per row, CSC one per column): a file may legitimately declare
// a sparse tensor too large to densify, and the user asking for that conversion is not a
// decoding defect. Conversions of larger tensors are skipped, by element count and by extent
// (a 2^31 x 0 csc holds no element, and its csr needs 2^31 index pointers); decoding them is
// still fuzzed.
constexpr std::int64_t kConvertElementBudget = std::int64_t{1} << 22;

void requireSameShape(const ElementInfo &element, const Tensor &tensor, const std::string &what)
{
    if (tensor.shape() != element.shape) {
        std::fprintf(stderr, "%s: %s has shape %s, but the catalog said %s\n", element.path.c_str(), what.c_str(),
                     shapeToString(tensor.shape()).c_str(), shapeToString(element.shape).c_str());
        std::abort();
    }
}

void convertToEveryLayout(const ElementInfo &element, const Tensor &tensor)
{
    const auto &shape = tensor.shape();
    if (numel(shape) > kConvertElementBudget
        || std::any_of(shape.begin(), shape.end(), [](std::int64_t extent) { return extent > kConvertElementBudget; }))
        return;
    for (const Layout target : kLayouts) {
        if (target == tensor.layout() || !layoutAcceptsRank(target, static_cast<int>(tensor.shape().size())))
            continue;
        requireSameShape(element, toLayout(tensor, target), "the tensor converted to " + std::string(layoutName(target)));
    }
}

void decodeElement(const H5File &file, const ElementInfo &element)
{
    countNonzeros(file, element); // inspect --count
    ValidationReport report;
    const Tensor tensor = readTensor(file, element.path, &report);
    requireSameShape(element, tensor, "the tensor read");
    convertToEveryLayout(element, tensor);
}

} // namespace

void runDecoders(const H5File &file)
{
    try {
        const auto elements = listElements(file);
        // Every element on its own (convert stops at the first refusal; going on reaches the
        // decoders of the elements after it, too).
        for (const auto &element : elements) {
            try {
                decodeElement(file, element);
            } catch (const Error &) {
                // A refusal naming the file, the dataset and the violated condition.
            }
        }
    } catch (const Error &) {
        // The catalog refused the file as a whole.
    }
}

} // namespace sparsity::fuzz
