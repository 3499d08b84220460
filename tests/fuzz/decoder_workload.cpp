#include "tests/fuzz/decoder_workload.h"

#include "core/io/element_count.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

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

[[noreturn]] void fail(const ElementInfo &element, const std::string &what)
{
    std::fprintf(stderr, "%s: %s\n", element.path.c_str(), what.c_str());
    std::abort();
}

// Values (as doubles, by their bits: NaN payloads too) and mask bytes of rows [begin, end) of
// `tensor` densified; the whole tensor for rows of the block itself.
std::pair<std::vector<std::uint64_t>, std::vector<std::uint8_t>>
denseRows(const Tensor &tensor, std::int64_t begin, std::int64_t end)
{
    const auto dense = toLayout(tensor, Layout::Dense);
    const auto values = toDenseDouble(dense).values;
    const auto width = tensor.shape()[0] == 0 ? 0 : static_cast<std::int64_t>(values.size()) / tensor.shape()[0];
    std::vector<std::uint64_t> bits;
    for (auto k = begin * width; k < end * width; ++k)
        bits.push_back(std::bit_cast<std::uint64_t>(values[static_cast<std::size_t>(k)]));
    std::vector<std::uint8_t> mask;
    if (dense.isMasked())
        mask.assign(dense.mask()->begin() + begin * width, dense.mask()->begin() + end * width);
    return {std::move(bits), std::move(mask)};
}

// The element read a block of rows at a time, as the streamed step reads it (dense and csr
// elements and masked_tensors of them by hyperslab, row_sparse ones by RowSparseRowReader):
// where the whole read succeeded, each half must read and hold exactly the whole's rows.
void decodeByRows(const H5File &file, const ElementInfo &element, const Tensor *whole)
{
    const bool rowSparse = rowSparseReadableByRows(file, element);
    if (element.shape.empty() || !(rowSparse || readableByRows(file, element)))
        return;
    const auto rows = element.shape[0];
    const bool compare = whole && numel(element.shape) <= kConvertElementBudget && rows <= kConvertElementBudget;
    for (const RowRange half : {RowRange{0, rows / 2}, RowRange{rows / 2, rows}}) {
        Tensor part;
        try {
            part =
                rowSparse ? RowSparseRowReader(file, element.path).readRows(half) : readTensor(file, element.path, nullptr, half);
        } catch (const Error &error) {
            if (whole)
                fail(element, std::string("read whole, but its rows were refused: ") + error.what());
            continue;
        }
        if (!compare)
            continue;
        if (part.shape()[0] != half.count() || part.isMasked() != whole->isMasked())
            fail(element, "a block of rows has another shape or masking than the whole's rows");
        if (denseRows(part, 0, half.count()) != denseRows(*whole, half.begin, half.end))
            fail(element, "a block of rows holds other values or mask bits than the whole's rows");
    }
}

void decodeElement(const H5File &file, const ElementInfo &element)
{
    countNonzeros(file, element); // inspect --count
    ValidationReport report;
    std::optional<Tensor> tensor;
    try {
        tensor = readTensor(file, element.path, &report);
    } catch (const Error &) {
        decodeByRows(file, element, nullptr); // refused whole: the rows' decoders still must not crash
        throw;
    }
    requireSameShape(element, *tensor, "the tensor read");
    decodeByRows(file, element, &*tensor);
    convertToEveryLayout(element, *tensor);
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
