#include "core/pipeline/input_bindings.h"

#include "core/io/file_identity.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/densified_rows.h"
#include "core/util/errors.h"
#include "core/util/memory_bound.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace sparsity::core {
namespace {

void requireBound(const Expression &node, std::string_view source, const std::set<std::string> &names)
{
    if (node.kind == Expression::Kind::Name && !names.count(node.name)) {
        std::string known;
        for (const auto &name : names)
            known += (known.empty() ? "" : ", ") + name;
        throw expressionError(source, node.column,
                              "unknown input '" + node.name + "' (inputs: " + (known.empty() ? "none" : known) + ")");
    }
    for (const auto &operand : node.operands)
        requireBound(*operand, source, names);
}

} // namespace

std::vector<BoundInput> bindInputs(const std::vector<InputBinding> &bindings,
                                   const Expression &expression,
                                   std::string_view source,
                                   const std::string &output)
{
    std::vector<BoundInput> inputs;
    std::set<std::string> names;
    for (const auto &binding : bindings) {
        if (!isIdentifier(binding.name))
            throw errors::mustBe("an input name", "be letters, digits and '_', not starting with a digit",
                                 "'" + binding.name + "'");
        if (binding.file.empty() || binding.path.empty())
            throw errors::mustBe("input " + binding.name, "name a file and a dataset path", "an empty one");
        if (!names.insert(binding.name).second)
            throw errors::mustBe("input " + binding.name, "be bound once", "bound twice");
        if (!output.empty())
            refuseOverwritingInput(output, binding.file);
        inputs.push_back({binding, {}, Layout::Dense, DType::Float32, false, 0, false, false, 0});
    }
    requireBound(expression, source, names);
    return inputs;
}

void describeBoundInputs(std::vector<BoundInput> &inputs, std::int64_t bandBudget)
{
    // Unmasked numeric coo and csc inputs not read by rows: rowReadOf reads them whole, unless
    // they are read by bands. Their files stay open for readableByBands.
    std::vector<std::tuple<BoundInput *, ElementInfo, H5File>> bandable;
    for (auto &input : inputs) {
        H5File file = H5File::openRead(input.binding.file);
        const ElementInfo element = requireElement(file, input.binding.path);
        input.shape = element.shape;
        input.layout = element.layout;
        input.dtype = element.dtype;
        input.masked = element.masked;
        input.specified = element.nnz.value_or(numel(element.shape));
        input.readsByRows = readableByRows(file, element);
        const bool numericSparse = !element.masked && element.layout != Layout::Dense && element.dtype != DType::Bool;
        input.densifiesByRows = numericSparse && rowReadOf(file, element) == RowRead::ByRows;
        if (numericSparse && !input.densifiesByRows && (element.layout == Layout::Csc || element.layout == Layout::Coo))
            bandable.emplace_back(&input, element, std::move(file));
    }
    const auto share = bandBudget / 2 / std::max<std::int64_t>(1, static_cast<std::int64_t>(bandable.size()));
    for (auto &[input, element, file] : bandable)
        if (share > 0 && ranks().isSolo() && readableByBands(file, element)) { // as densifiedReadOf
            input->densifiesByRows = true;
            // Its two readers each hold a band, beside the count of each row's entries that they
            // share: half of that from each one's share (less where it is spilled).
            const auto counts = rowCountBytes(element.shape[0]);
            input->bandBytes = bandBytesFor(file, element, bandShareLeft(2 * share, counts, share));
        }
}

std::vector<NamedTensor> readBoundInputs(std::vector<BoundInput> &inputs, ValidationReport &report)
{
    std::vector<NamedTensor> tensors;
    for (auto &input : inputs) {
        const H5File file = H5File::openRead(input.binding.file);
        const ElementInfo element = requireElement(file, input.binding.path);
        // A bool dataset is a mask here, which is what the conversion notice would question.
        const bool isBool = element.dtype == DType::Bool;
        Tensor tensor = withAllocationContext(file.where(element.path), "reading it",
                                              [&] { return readTensor(file, input.binding.path, isBool ? nullptr : &report); });
        input.shape = tensor.shape();
        input.layout = tensor.layout();
        input.dtype = element.dtype;
        input.masked = tensor.isMasked();
        input.specified = tensor.specifiedCount();
        tensors.push_back({input.binding.name, std::move(tensor), isBool});
    }
    return tensors;
}

} // namespace sparsity::core
