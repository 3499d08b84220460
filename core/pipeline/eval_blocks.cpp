#include "core/pipeline/eval_blocks.h"

#include "core/io/atomic_output.h"
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/masked/element_ops.h"
#include "core/masked/matmul_kernels.h"
#include "core/masked/softmax_kernel.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/densified_rows.h"
#include "core/pipeline/mask_mismatch_log.h"
#include "core/tensor/dtype.h"
#include "core/util/elapsed.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <variant>

namespace sparsity::core {
namespace {

const BoundInput *inputNamed(const std::vector<BoundInput> &inputs, const std::string &name)
{
    for (const auto &input : inputs)
        if (input.binding.name == name)
            return &input;
    return nullptr;
}

bool isSoftmax(const Expression &node) { return node.kind == Expression::Kind::Call && softmaxNamed(node.name); }

std::int64_t softmaxCalls(const Expression &node)
{
    std::int64_t calls = isSoftmax(node) ? 1 : 0;
    for (const auto &operand : node.operands)
        calls += softmaxCalls(*operand);
    return calls;
}

bool isProduct(const Expression &node) { return node.kind == Expression::Kind::Call && node.name == "mm"; }

// Adds each name `node` uses to `held` when it is mm's second operand, else to `rowwise`.
void collectUses(const Expression &node, std::vector<std::string> &held, std::vector<std::string> &rowwise)
{
    if (node.kind == Expression::Kind::Name) {
        rowwise.push_back(node.name);
        return;
    }
    for (std::size_t k = 0; k < node.operands.size(); ++k) {
        const auto &operand = *node.operands[k];
        if (isProduct(node) && k == 1 && operand.kind == Expression::Kind::Name)
            held.push_back(operand.name);
        else
            collectUses(operand, held, rowwise);
    }
}

// The inputs read whole, once: those used only as a product's second operand (`w` in
// `mm(x, w)`, where a row of the result needs a row of x and all of w).
std::vector<std::string> heldNames(const Expression &expression)
{
    std::vector<std::string> held, rowwise, names;
    collectUses(expression, held, rowwise);
    for (const auto &name : held)
        if (std::find(rowwise.begin(), rowwise.end(), name) == rowwise.end()
            && std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    return names;
}

// The dim that a call's second argument names over an operand of `rank` dims; nullopt when
// there is no such argument, it is not an integer literal, or it is out of range.
std::optional<int> dimArgument(const Expression &call, std::size_t rank)
{
    const auto written = call.operands.size() == 2 ? integerLiteral(*call.operands[1]) : std::nullopt;
    return written ? wrappedDim(*written, rank) : std::nullopt;
}

bool isMaskingCall(const Expression &node)
{
    return node.kind == Expression::Kind::Call && (node.name == "masked" || node.name == "intersect" || node.name == "data");
}

// What the evaluator makes of a value's kind, known from the inputs' descriptions alone: masked,
// or read from a bool dataset (a pattern for masked and intersect).
struct KindOf {
    bool masked = false;
    bool isBool = false;
};

// The kind of `node`'s value; nullopt where the evaluator refuses its operands' kinds (where's
// condition masked, intersect of an unmasked value, a pattern of plain numbers) or the node is
// not one a stream evaluates. Such an expression is evaluated whole, whose error names the whole
// tensors: a block's would name the block, or the first row's intersect-policy look ahead could
// meet it before a difference of masks the whole evaluation meets first.
std::optional<KindOf> kindOf(const Expression &node, const std::vector<BoundInput> &inputs)
{
    if (node.kind == Expression::Kind::Number)
        return KindOf{};
    if (node.kind == Expression::Kind::Name) {
        const auto *input = inputNamed(inputs, node.name);
        return input ? std::optional(KindOf{input->masked, !input->masked && input->dtype == DType::Bool}) : std::nullopt;
    }
    std::vector<KindOf> operands;
    for (const auto &operand : node.operands) {
        const auto kind = kindOf(*operand, inputs);
        if (!kind)
            return std::nullopt;
        operands.push_back(*kind);
    }
    const auto anyMasked = [&](std::size_t from) {
        return std::any_of(operands.begin() + static_cast<std::ptrdiff_t>(from), operands.end(),
                           [](const KindOf &k) { return k.masked; });
    };
    const auto isPattern = [](const KindOf &k) { return k.masked || k.isBool; };
    if (node.kind != Expression::Kind::Call || elementOpNamed(node.name)) {
        const bool where = node.kind == Expression::Kind::Call && node.name == "where";
        if (where && operands[0].masked)
            return std::nullopt;
        return KindOf{anyMasked(where ? 1 : 0), false};
    }
    if (node.name == "data")
        return KindOf{false, operands[0].isBool};
    if (node.name == "masked")
        return isPattern(operands[1]) ? std::optional(KindOf{true, false}) : std::nullopt;
    if (node.name == "intersect")
        return operands[0].masked && isPattern(operands[1]) ? std::optional(KindOf{true, false}) : std::nullopt;
    if (reduceOpNamed(node.name) || softmaxNamed(node.name) || node.name == "mm")
        return KindOf{anyMasked(0), false};
    return std::nullopt;
}

bool contains(const std::vector<std::string> &names, const std::string &name)
{
    return std::find(names.begin(), names.end(), name) != names.end();
}

// Whether every use of `name` below `node` reads its values alone: an operand of an
// elementwise op, a reduction or data(). Those read a sparse value as the dense tensor it
// stands for and give no sparse result (SEMANTICS.md, "Masked tensors"), so a sparse input used
// only so evaluates as its densified rows would: other uses see its pattern (softmax,
// sparse_mask, masked, to_sparse, mm, sparse_mm), or the result would be it.
bool readsValuesOnly(const Expression &node, const std::string &name)
{
    const bool valuesOnly = node.kind == Expression::Kind::Binary || node.kind == Expression::Kind::Negate
                            || (node.kind == Expression::Kind::Call
                                && (elementOpNamed(node.name) || reduceOpNamed(node.name) || node.name == "data"));
    for (const auto &operand : node.operands) {
        if (operand->kind == Expression::Kind::Name && operand->name == name && !valuesOnly)
            return false;
        if (!readsValuesOnly(*operand, name))
            return false;
    }
    return true;
}

// The columns a softmax over dim 0 of an operand of `shape` folds: its elements per row; 0
// when it has a single dim (a single lane).
std::int64_t foldedColumns(const Shape &shape) { return shape.size() < 2 ? 0 : numel(shape, 1, shape.size()); }

// The shape of `node` when it is row-local (see eval_blocks.h), or a number (0-d); nullopt
// when it is not, or when its shapes do not fit (the whole evaluation then says why).
std::optional<Shape>
rowLocalShape(const Expression &node, const std::vector<BoundInput> &inputs, const std::vector<std::string> &held)
{
    if (node.kind == Expression::Kind::Number)
        return Shape{};
    if (node.kind == Expression::Kind::Name) {
        const auto *input = inputNamed(inputs, node.name);
        return input && !contains(held, node.name) ? std::optional<Shape>(input->shape) : std::nullopt;
    }
    // A product of a row-local operand and a held input: a row of the result is a row of the
    // first operand times the whole second.
    if (isProduct(node)) {
        // `mm(x, x)`, or `mm(x, y) + y`: y is needed whole and by rows, so it is not held.
        if (node.operands.size() != 2 || node.operands[1]->kind != Expression::Kind::Name
            || !contains(held, node.operands[1]->name))
            return std::nullopt;
        const auto rows = rowLocalShape(*node.operands[0], inputs, held);
        const auto *right = inputNamed(inputs, node.operands[1]->name);
        if (!rows || !right || rows->size() != 2 || right->shape.size() != 2 || (*rows)[1] != right->shape[0])
            return std::nullopt;
        return Shape{(*rows)[0], right->shape[1]};
    }
    // A reduction or softmax over a dim other than 0 of a row-local operand (a reduction over all
    // dims or dim 0 goes across rows). A softmax lane is computed the same wherever it lies
    // (softmax_kernel.cpp), so a block's rows give what the whole tensor's do. A softmax over
    // dim 0 of more than one column is row-local too once its columns are folded over every row
    // beforehand (foldedSoftmaxes); a single column is one contiguous lane, whose vectorised sum
    // a fold in row order would not reproduce.
    const bool reduction = node.kind == Expression::Kind::Call && reduceOpNamed(node.name);
    if (reduction || isSoftmax(node)) {
        if (node.operands.size() != 2)
            return std::nullopt;
        auto shape = rowLocalShape(*node.operands[0], inputs, held);
        const auto dim = shape ? dimArgument(node, shape->size()) : std::nullopt;
        if (!dim || (*dim == 0 && (reduction || foldedColumns(*shape) <= 1)))
            return std::nullopt;
        if (reduction)
            shape->erase(shape->begin() + *dim);
        return shape;
    }
    // masked(x, m), intersect(x, y), data(x): x's values, a mask of the same shape.
    if (isMaskingCall(node)) {
        const auto shape = rowLocalShape(*node.operands[0], inputs, held);
        for (const auto &operand : node.operands)
            if (rowLocalShape(*operand, inputs, held) != shape || !shape || shape->empty())
                return std::nullopt; // a number as a mask: the whole evaluation refuses it
        return shape;
    }
    if (node.kind == Expression::Kind::Call && !elementOpNamed(node.name))
        return std::nullopt;
    // Elementwise: operands of one shape, or numbers.
    Shape shape;
    for (const auto &operand : node.operands) {
        const auto operandShape = rowLocalShape(*operand, inputs, held);
        if (!operandShape)
            return std::nullopt;
        if (operandShape->empty())
            continue;
        if (!shape.empty() && *operandShape != shape)
            return std::nullopt;
        shape = *operandShape;
    }
    return shape;
}

// The softmaxes over dim 0 in the row-local `node`, each after those in its operand.
void collectFoldedSoftmaxes(const Expression &node,
                            const std::vector<BoundInput> &inputs,
                            const std::vector<std::string> &held,
                            std::vector<EvalRowPlan::FoldedSoftmax> &folded)
{
    for (const auto &operand : node.operands)
        collectFoldedSoftmaxes(*operand, inputs, held, folded);
    if (!isSoftmax(node) || node.operands.size() != 2)
        return;
    const auto shape = rowLocalShape(*node.operands[0], inputs, held);
    if (shape && dimArgument(node, shape->size()) == 0)
        folded.push_back({&node, foldedColumns(*shape)});
}

bool isUsed(const std::vector<std::string> &used, const BoundInput &input)
{
    return std::find(used.begin(), used.end(), input.binding.name) != used.end();
}

// A sparse input densified by rows in the evaluation's precision, as the whole evaluation
// densifies it (toMaskedValue): `told` reads the rows of the result's pass and tells the whole
// read's notes and repairs; `quiet` reads again for the look-ahead and a softmax's folding
// passes, telling nothing (a repair told for a row read before would not be told again).
template <class T>
struct DensifiedSource {
    std::unique_ptr<DensifiedRows<T>> told, quiet;
};

// An input read a block of rows at a time (not a held one): a plain dense dataset straight
// into the block, a masked or bool one as the whole read reads it, restricted to the rows, a
// sparse one densified. A masked or bool input bound but not used is read too, for what the
// whole read checks and reports (its parts, its specified count), and not evaluated.
struct RowSource {
    BoundInput *input = nullptr;
    const H5File *file = nullptr;
    std::optional<DenseRowReader> dense; // plain (not masked, not bool)
    std::variant<std::monostate, DensifiedSource<float>, DensifiedSource<double>> densified;
    std::int64_t specified = 0; // of a masked or sparse one: specified (stored) elements of the blocks tallied
    bool used = true;           // by the expression
    // A plain or sparse one's last block's values, once evaluated (recycle()): the next block is
    // read or densified into them, not into fresh memory that is faulted in and zeroed again.
    ByPrecision<Buffer> spare;
};

// Hands each plain or sparse source its block's values back from `rowInputs`, the evaluation
// being done.
void recycle(std::vector<RowSource> &sources, std::vector<EvalInput> &rowInputs)
{
    for (auto &source : sources) {
        const bool densified = !std::holds_alternative<std::monostate>(source.densified);
        if ((!source.dense && !densified) || !source.used)
            continue;
        const bool inFloat = densified ? std::holds_alternative<DensifiedSource<float>>(source.densified)
                                       : computeTypeFor(source.input->dtype) == DType::Float32;
        for (auto &input : rowInputs)
            if (input.name == source.input->binding.name) {
                if (inFloat)
                    source.spare.inFloat = releasedValues<float>(input);
                else
                    source.spare.inDouble = releasedValues<double>(input);
            }
    }
}

// Reads rows [first, end) of every source in its compute type, as the whole path reads it, and
// gives those the expression uses. `tally` counts a masked input's specified elements (once for
// each row). `only` (when not tallying): the names of the sources to read, the rest skipped.
std::vector<NamedTensor> readBlock(std::vector<RowSource> &sources,
                                   std::int64_t first,
                                   std::int64_t end,
                                   bool tally,
                                   const std::vector<std::string> *only = nullptr)
{
    std::vector<NamedTensor> tensors;
    for (auto &source : sources) {
        const auto &input = *source.input;
        if (!tally && only && !contains(*only, input.binding.name))
            continue;
        const bool isBool = input.dtype == DType::Bool;
        if (!std::holds_alternative<std::monostate>(source.densified)) {
            std::visit(
                [&](auto &readers) {
                    using Readers = std::decay_t<decltype(readers)>;
                    if constexpr (!std::is_same_v<Readers, std::monostate>) {
                        using T = typename decltype(Readers::told)::element_type::Value;
                        auto &reader = tally ? *readers.told : *readers.quiet;
                        const auto storedBefore = reader.storedRead();
                        auto block = reader.rows({first, end}, std::move(source.spare.of<T>()));
                        if (tally)
                            source.specified += reader.storedRead() - storedBefore;
                        if (source.used)
                            tensors.push_back({input.binding.name, Tensor(Storage{std::move(block)}), false});
                    }
                },
                source.densified);
            continue;
        }
        if (!source.dense) {
            auto block = readTensor(*source.file, input.binding.path, nullptr, RowRange{first, end});
            if (tally)
                source.specified += block.specifiedCount();
            if (source.used)
                tensors.push_back({input.binding.name, std::move(block), isBool});
            continue;
        }
        Shape shape = input.shape;
        shape[0] = end - first;
        const auto read = [&](auto zero) {
            using T = decltype(zero);
            DenseTensor<T> block{shape, std::move(source.spare.of<T>())};
            block.values.resize(static_cast<std::size_t>(numel(shape)));
            source.dense->readRows(first, end, block.values.data());
            return Tensor(Storage{std::move(block)});
        };
        tensors.push_back({input.binding.name, withComputeType(input.dtype, read), false});
    }
    return tensors;
}

// The reduction of `plan` over every rank's blocks, on every rank. Each rank folds its own
// blocks' tiles; across ranks the tiles' partials go to the root, which folds them in row
// order. When those partials would not fit the budget (a reduction over dim 0 of long rows)
// the root streams every block alone while the others wait.
template <class T, class FoldRows>
MaskedValue<T> reduceInBlocks(
    const EvalRowPlan &plan, const RankBlocks &blocks, FoldRows &foldRows, const RankGroup &group, std::int64_t budgetBytes)
{
    using Mode = typename RowReduction<T>::Mode;
    const auto rows = plan.rows;
    const auto inner = reductionGeometry(plan.operandShape, plan.dim).inner;
    const auto partialBytes = (rows + reductionTileRows(plan.operandShape) - 1) / reductionTileRows(plan.operandShape) * inner
                              * static_cast<std::int64_t>(sizeof(double) + sizeof(std::int64_t));
    MaskedValue<T> value; // the result, on the root
    if (group.isSolo() || partialBytes > budgetBytes / 4) {
        std::exception_ptr failure;
        try {
            if (group.isRoot()) {
                RowReduction<T> reduction(plan.op, plan.operandShape, plan.dim);
                for (std::int64_t first = 0; first < rows; first += blocks.blockRows)
                    foldRows(reduction, RowRange{first, std::min(rows, first + blocks.blockRows)});
                value = reduction.finish();
            }
        } catch (...) {
            failure = std::current_exception();
        }
        group.waitIdle();
        group.agree(failure);
    } else {
        RowReduction<T> mine(plan.op, plan.operandShape, plan.dim, Mode::KeepTiles);
        agreeOn(group, [&] {
            for (std::int64_t k = 0; k < blocks.count; ++k)
                foldRows(mine, blocks.block(k));
        });
        const auto parts = group.gatherToRoot(mine.keptTiles());
        agreeOn(group, [&] {
            if (!group.isRoot())
                return;
            RowReduction<T> reduction(plan.op, plan.operandShape, plan.dim);
            for (const auto &part : parts)
                reduction.foldTiles(part);
            value = reduction.finish();
        });
    }
    // Every rank writes the root's result collectively: its values, and its mask when masked.
    const auto bytes =
        group.broadcast(std::string(reinterpret_cast<const char *>(value.values.data()), value.values.size() * sizeof(T)));
    const auto maskBytes = group.broadcast(
        value.mask ? std::string(reinterpret_cast<const char *>(value.mask->data()), value.mask->size()) : std::string());
    value.shape = plan.resultShape;
    value.values.resize(bytes.size() / sizeof(T));
    std::memcpy(value.values.data(), bytes.data(), bytes.size());
    if (!maskBytes.empty()) {
        value.kind = ValueKind::Masked;
        value.mask = std::make_shared<const Mask>(maskBytes.begin(), maskBytes.end());
    }
    return value;
}

// /result written a block of rows at a time, as writeTensor writes the whole: a dataset, or a
// masked_tensor group of dense data and mask. On a shared file every rank makes each write,
// with its rows or with none.
class ResultRows {
public:
    ResultRows(H5File &file, const Shape &shape, DType dtype, bool masked)
    {
        if (masked)
            createEncodedGroup(file, "/result", "masked_tensor");
        m_data.emplace(file, masked ? "/result/data" : "/result", shape, dtype);
        if (masked)
            m_mask.emplace(file, "/result/mask", shape, DType::Bool);
    }
    // Rows [first, first + rows) of the result: `value`'s, or none (this rank's share of a
    // collective write is empty, or its masks differed and nothing is kept).
    template <class T>
    void write(std::int64_t first, std::int64_t rows, const MaskedValue<T> *value)
    {
        if (!value) {
            m_data->writeRows(first, 0, nullptr);
            if (m_mask)
                m_mask->writeRows(first, 0, nullptr);
            return;
        }
        if (m_mask.has_value() != (value->kind == ValueKind::Masked))
            throw InternalError("eval: a block's kind is not the first row's");
        m_data->writeRows(first, rows, value->values.data());
        if (m_mask)
            m_mask->writeRows(first, rows, value->mask->data());
        m_specified += specifiedCount(*value);
    }
    // Specified elements of the rows this rank wrote.
    std::int64_t specified() const { return m_specified; }

private:
    std::optional<RowStreamWriter> m_data, m_mask;
    std::int64_t m_specified = 0;
};

// The columns of every softmax over dim 0 in `plan` (innermost first), folded over every row
// in order on the root alone, the other ranks waiting (a total summed in another order differs
// in its last bits), and handed to every rank: registered in `folded` for the evaluations of
// the result's blocks. `operandOf(node, first, end)` evaluates rows [first, end) of a softmax's
// operand, with the columns folded before it (none where their masks differ: reported once the
// result's pass meets them).
template <class T, class OperandOf>
std::vector<std::unique_ptr<ColumnSoftmax<T>>> foldSoftmaxColumns(const EvalRowPlan &plan,
                                                                  const RankBlocks &blocks,
                                                                  const RankGroup &group,
                                                                  OperandOf &&operandOf,
                                                                  FoldedSoftmaxes &folded,
                                                                  double &computeSeconds)
{
    auto &registered = folded.of<T>();
    std::vector<std::unique_ptr<ColumnSoftmax<T>>> columns;
    // Allocated on every rank, agreed on: a rank that cannot stops every rank with its error.
    agreeOn(group, [&] {
        for (const auto &softmax : plan.foldedSoftmaxes)
            columns.push_back(std::make_unique<ColumnSoftmax<T>>(softmax.columns));
    });
    std::exception_ptr failure;
    try {
        if (group.isRoot()) {
            for (std::size_t k = 0; k < columns.size(); ++k) {
                const Expression &node = *plan.foldedSoftmaxes[k].node;
                for (const auto pass : {&ColumnSoftmax<T>::foldMaximum, &ColumnSoftmax<T>::foldTotal})
                    for (std::int64_t first = 0; first < plan.rows; first += blocks.blockRows) {
                        const auto end = std::min(plan.rows, first + blocks.blockRows);
                        const std::optional<MaskedValue<T>> value = operandOf(*node.operands[0], first, end);
                        if (!value)
                            continue;
                        const auto start = Clock::now();
                        (columns[k].get()->*pass)(value->values.data(), value->mask ? value->mask->data() : nullptr, end - first);
                        computeSeconds += secondsSince(start);
                    }
                registered[&node] = columns[k].get();
            }
        }
    } catch (...) {
        failure = std::current_exception();
    }
    group.waitIdle();
    group.agree(failure);
    for (std::size_t k = 0; k < columns.size(); ++k) {
        for (auto *vector : {&columns[k]->maximum(), &columns[k]->total()}) {
            const auto bytes =
                group.broadcast(std::string(reinterpret_cast<const char *>(vector->data()), vector->size() * sizeof(double)));
            std::memcpy(vector->data(), bytes.data(), std::min(bytes.size(), vector->size() * sizeof(double)));
        }
        registered[plan.foldedSoftmaxes[k].node] = columns[k].get();
    }
    return columns;
}

} // namespace

EvalRowPlan planEvalInRows(const Expression &expression, const std::vector<BoundInput> &inputs)
{
    EvalRowPlan plan;
    const auto used = expression.inputNames();
    const auto held = heldNames(expression);
    for (const auto &input : inputs) {
        // Dense datasets, plain or bool (a mask), masked_tensors of dense data and mask, and
        // sparse elements densified by rows whose values alone the expression reads.
        if (input.densifiesByRows) {
            const auto &name = input.binding.name;
            const bool isTheResult = expression.kind == Expression::Kind::Name && expression.name == name;
            if (isUsed(used, input) && (contains(held, name) || isTheResult || !readsValuesOnly(expression, name)))
                return plan;
        } else if (input.layout != Layout::Dense || (input.masked && !input.readsByRows)) {
            return plan;
        }
        // A plain one not used is not read: its description is all the report gives. A masked,
        // bool or sparse one is (its specified count, a broken mask or index), by rows of the
        // same count.
        if (!isUsed(used, input) && !input.masked && input.dtype != DType::Bool && !input.densifiesByRows)
            continue;
        if (input.shape.empty() || numel(input.shape) == 0)
            return plan;
        if (contains(held, input.binding.name))
            continue; // read whole: any shape the product accepts
        // Rows of one count; their widths may differ where the expression reduces or
        // multiplies them to one shape (`sum(x, 1) + y` over [R, 70] and [R]).
        if (plan.rows > 0 && input.shape[0] != plan.rows)
            return plan;
        plan.rows = input.shape[0];
    }
    if (plan.rows == 0 || !kindOf(expression, inputs))
        return plan;
    plan.held = held;
    plan.alignRows = held.empty() ? 1 : kProductChunkRows;
    collectFoldedSoftmaxes(expression, inputs, held, plan.foldedSoftmaxes);
    if (const auto resultShape = rowLocalShape(expression, inputs, held); resultShape && !resultShape->empty()) {
        plan.kind = EvalRowPlan::Kind::RowLocal;
        plan.resultShape = *resultShape;
        return plan;
    }
    // A reduction over all dims or dim 0 of a row-local operand.
    const auto op = expression.kind == Expression::Kind::Call ? reduceOpNamed(expression.name) : std::nullopt;
    if (!op || expression.operands.empty() || expression.operands.size() > 2)
        return plan;
    const auto operandShape = rowLocalShape(*expression.operands[0], inputs, held);
    if (!operandShape || operandShape->empty())
        return plan;
    if (expression.operands.size() == 2) {
        if (dimArgument(expression, operandShape->size()) != 0)
            return plan;
        plan.dim = 0;
    }
    // A block must hold whole tiles of the reduction and whole chunks of a product: when a tile
    // is not whole chunks, the two meet only at their least common multiple, up to 64 tiles
    // (1.4 M rows for a product 3 wide), far past any budget.
    if (plan.alignRows > 1 && reductionTileRows(*operandShape) % plan.alignRows != 0)
        return plan;
    plan.kind = EvalRowPlan::Kind::RowReduction;
    plan.operand = expression.operands[0].get();
    plan.operandShape = *operandShape;
    plan.op = *op;
    plan.resultShape = reductionGeometry(*operandShape, plan.dim).resultShape;
    return plan;
}

std::int64_t evalInputBytes(const Expression &expression, const std::vector<BoundInput> &inputs)
{
    const auto used = expression.inputNames();
    std::int64_t bytes = 0;
    for (const auto &input : inputs)
        if (isUsed(used, input))
            bytes = saturatedSum(bytes, bytesFor(numel(input.shape), dtypeSize(computeTypeFor(input.dtype))));
    return bytes;
}

EvalReport evalInBlocks(const EvalRequest &request,
                        const Expression &expression,
                        const EvalRowPlan &plan,
                        std::vector<BoundInput> inputs,
                        Device device,
                        ValidationReport &report,
                        std::int64_t budgetBytes)
{
    const auto start = Clock::now();
    EvalReport result;
    result.device = device;
    result.streamed = true;
    const auto used = expression.inputNames();
    const auto &group = ranks();
    std::vector<H5File> files;
    std::vector<RowSource> sources;
    files.reserve(inputs.size());
    std::int64_t inputRowBytes = 0; // of a row of every input read by rows, as read and as the evaluator's copy
    const auto rowElements = [](const Shape &shape) { return shape.empty() ? 1 : numel(shape, 1, shape.size()); };
    // Elements: of an input's row, or of the result's (a reduction's: of its operand's).
    std::int64_t widestRow = rowElements(plan.kind == EvalRowPlan::Kind::RowReduction ? plan.operandShape : plan.resultShape);
    std::int64_t heldBytes = 0;    // of the held inputs, as read and as the evaluator's copy
    std::int64_t productWidth = 0; // of the products' rows: the held inputs' columns
    bool masks = false;            // some input is masked or bool: values carry masks
    // As the whole evaluation decides over the whole inputs (computesInDouble): a float64 input
    // whose values reach the result.
    const auto valued = valueInputNames(expression);
    bool inDouble = false;
    for (const auto &input : inputs)
        inDouble = inDouble
                   || (isUsed(used, input) && input.dtype != DType::Bool && computeTypeFor(input.dtype) == DType::Float64
                       && contains(valued, input.binding.name));
    std::vector<NamedTensor> heldTensors;
    for (auto &input : inputs) {
        const bool isBool = input.dtype == DType::Bool;
        if (!isUsed(used, input) && !input.masked && !isBool && !input.densifiesByRows)
            continue; // plain and unused: not read (planEvalInRows)
        files.push_back(H5File::openRead(input.binding.file));
        if (contains(plan.held, input.binding.name)) {
            // Read whole, within the whole-tensor budget; a rank that cannot stops every rank.
            heldTensors.push_back(
                {input.binding.name,
                 agreeOn(group, [&] { return readTensor(files.back(), input.binding.path, isBool ? nullptr : &report); }),
                 isBool});
            input.specified = heldTensors.back().tensor.specifiedCount(); // masked: its mask's bits
            heldBytes += 2 * bytesFor(numel(input.shape), dtypeSize(computeTypeFor(input.dtype)));
            productWidth += input.shape[1];
            continue;
        }
        RowSource source;
        source.input = &input;
        source.file = &files.back();
        source.used = isUsed(used, input);
        auto bytesPerElement = 2 * static_cast<std::int64_t>(dtypeSize(computeTypeFor(input.dtype)));
        if (input.densifiesByRows) {
            // Densified in the evaluation's precision: its rows as stored, then densified, then
            // the evaluator's copy. Opened on every rank together: opening checks indices.
            // Read by bands, each reader holds a band of the input's bandBytes, and the two share
            // one band reader (its counts and its spill), outside the blocks' budget
            // (describeBoundInputs took them from the budget).
            const auto open = [&](auto zero) {
                using T = decltype(zero);
                const auto how = input.bandBytes > 0 ? RowRead::ByBands : RowRead::ByRows;
                auto told = openOnEveryRank<T>(files.back(), input.binding.path, how, &report);
                if (input.bandBytes > 0)
                    told->holdBands(input.bandBytes);
                auto quiet = told->quietTwin();
                return DensifiedSource<T>{std::move(told), std::move(quiet)};
            };
            if (inDouble)
                source.densified = open(double{});
            else
                source.densified = open(float{});
            bytesPerElement = 3 * static_cast<std::int64_t>(inDouble ? sizeof(double) : sizeof(float));
        } else if (input.masked || isBool) {
            // Its first row, read for the notices the whole read gives (a bool dataset is a mask
            // here, which a conversion notice would question) and the checks of its parts.
            agreeOn(group, [&] { readTensor(files.back(), input.binding.path, isBool ? nullptr : &report, RowRange{0, 1}); });
            bytesPerElement += 2; // the mask, a byte an element (a bool dataset's as read, then as values)
            masks = true;
        } else {
            source.dense.emplace(files.back(), input.binding.path);
            // Named as the whole read names it: by the element's path, "/u" for an input given as "u".
            noteConversion(&report, files.back().where(requireElement(files.back(), input.binding.path).path), input.dtype);
        }
        sources.push_back(std::move(source));
        inputRowBytes += rowElements(input.shape) * bytesPerElement;
        widestRow = std::max(widestRow, rowElements(input.shape));
    }
    // A folded softmax's columns: maxima, totals and their logarithms, in double.
    for (const auto &softmax : plan.foldedSoftmaxes)
        heldBytes += 3 * static_cast<std::int64_t>(sizeof(double)) * softmax.columns;
    // Converted once, shared by every block's evaluation.
    const auto heldInputs = makeEvalInputsIn(std::move(heldTensors), inDouble);
    heldTensors.clear(); // what a conversion to another type left
    const auto rows = plan.rows;
    // Per row of a block: each input as read and as the evaluator's copy, and the result (or an
    // intermediate as wide as the widest row); a softmax holds its operand and its own result
    // besides, a product its result.
    const auto perRow = std::max<std::int64_t>(
        1, inputRowBytes + widestRow * (8 + 16 * softmaxCalls(expression) + (masks ? 2 : 0)) + 16 * productWidth);
    auto blockRows = std::clamp<std::int64_t>((budgetBytes - std::min(budgetBytes, heldBytes)) / perRow, 1, rows);
    const bool reduction = plan.kind == EvalRowPlan::Kind::RowReduction;
    // Whole tiles of a reduction's fixed order (whole chunks of a product too: see
    // planEvalInRows), or whole chunks of a product, in every block but the last.
    const auto tileRows = reduction ? reductionTileRows(plan.operandShape) : plan.alignRows;
    blockRows = std::max(tileRows, blockRows / tileRows * tileRows);
    const Expression &evaluated = reduction ? *plan.operand : expression;

    // Across ranks: the same blocks, each rank its own range of them, every rank making as many
    // (collective) writes as the one with the most.
    const auto blocks = divideRows(group, rows, blockRows);
    double computeSeconds = 0.0;
    // Masks that differ under the strict policy, block by block: reported once every block is
    // evaluated, as the whole evaluation reports them.
    MaskMismatchLog mismatches(evaluated, request.expression);
    // Reads rows [first, end) of every input read by rows and hands those used to `compute` as
    // evaluator inputs, in the precision the whole expression would use (a reduction's operand too).
    // `tally`: these rows are read for the result, once (not the first row's look ahead, nor
    // the passes that fold a softmax's columns).
    const auto onRows = [&](std::int64_t first, std::int64_t end, bool tally, auto &&compute,
                            const std::vector<std::string> *only = nullptr) {
        auto tensors = readBlock(sources, first, end, tally, only);
        const auto computeStart = Clock::now();
        auto rowInputs = makeEvalInputsIn(std::move(tensors), inDouble);
        rowInputs.insert(rowInputs.end(), heldInputs.begin(), heldInputs.end());
        try {
            compute(rowInputs);
        } catch (const MaskMismatch &mismatch) {
            if (tally) // once for each row: a softmax over dim 0 has its blocks read more than once
                mismatches.note(mismatch, first);
        }
        recycle(sources, rowInputs);
        computeSeconds += secondsSince(computeStart);
    };
    // The softmaxes over dim 0 whose columns are folded (foldSoftmaxColumns).
    FoldedSoftmaxes folded;
    // The value of `node` over rows [first, end); none when their masks differ (noted when `tally`).
    // A part of the expression (a softmax's operand) reads only the inputs it uses.
    auto evaluateNode = [&](const Expression &node, std::int64_t first, std::int64_t end, bool tally, MaskPolicy policy) {
        std::optional<AnyValue> value;
        const auto names = node.inputNames();
        onRows(
            first, end, tally,
            [&](const std::vector<EvalInput> &rowInputs) {
                value = evaluateExpression(node, request.expression, rowInputs, policy, device, &folded);
            },
            &node == &evaluated ? nullptr : &names);
        return value;
    };
    auto evaluate = [&](std::int64_t first, std::int64_t end, bool tally, MaskPolicy policy) {
        return evaluateNode(evaluated, first, end, tally, policy);
    };
    // Held until the result is written: `folded` points into them.
    std::vector<std::unique_ptr<ColumnSoftmax<float>>> columnsInFloat;
    std::vector<std::unique_ptr<ColumnSoftmax<double>>> columnsInDouble;
    const auto foldColumns = [&](auto zero) {
        using T = decltype(zero);
        return foldSoftmaxColumns<T>(
            plan, blocks, group,
            [&](const Expression &operand, std::int64_t first, std::int64_t end) {
                auto value = evaluateNode(operand, first, end, false, request.policy);
                return value ? std::optional<MaskedValue<T>>(std::get<MaskedValue<T>>(std::move(*value))) : std::nullopt;
            },
            folded, computeSeconds);
    };
    if (!plan.foldedSoftmaxes.empty()) {
        if (inDouble)
            columnsInDouble = foldColumns(double{});
        else
            columnsInFloat = foldColumns(float{});
    }
    // The result's dtype and kind, known before any rank writes: the expression on the first
    // row, whose masks may differ (the intersect policy: reported with every block's).
    agreeOn(group, [&] {
        std::visit(
            [&](const auto &v) {
                result.dtype = dtypeOf<typename std::decay_t<decltype(v.values)>::value_type>();
                result.kind = v.kind;
            },
            *evaluate(0, 1, false, MaskPolicy::Intersect));
    });
    const bool masked = result.kind == ValueKind::Masked;

    AtomicOutput output(request.output);
    if (reduction) {
        // Each block's rows fold into the reduction straight from the fused program.
        auto foldRows = [&](auto &into, RowRange block) {
            onRows(block.begin, block.end, true, [&](const std::vector<EvalInput> &rowInputs) {
                foldExpression(*plan.operand, request.expression, rowInputs, request.policy, into, block.count(), &folded);
            });
        };
        const auto fold = [&](auto zero) {
            using T = decltype(zero);
            const auto value = reduceInBlocks<T>(plan, blocks, foldRows, group, budgetBytes);
            mismatches.raiseAcrossRanks(group, rows);
            result.specified = specifiedCount(value);
            writeTensor(output.file(), "/result", toTensor(value));
        };
        result.dtype == DType::Float64 ? fold(double{}) : fold(float{});
    } else {
        ResultRows writer(output.file(), plan.resultShape, result.dtype, masked);
        for (std::int64_t k = 0; k < blocks.rounds; ++k) {
            const auto block = blocks.block(k);
            std::optional<AnyValue> value;
            agreeOn(group, [&] {
                if (block.count() > 0)
                    value = evaluate(block.begin, block.end, true, request.policy);
            });
            if (!value)
                writer.write<float>(block.begin, 0, nullptr);
            else
                std::visit([&](const auto &v) { writer.write(block.begin, block.count(), &v); }, *value);
        }
        mismatches.raiseAcrossRanks(group, rows);
        result.specified = group.sum(writer.specified());
    }
    // A sparse input's repairs, told for every rank's rows as one whole read tells them.
    for (auto &source : sources)
        std::visit(
            [](auto &readers) {
                if constexpr (!std::is_same_v<std::decay_t<decltype(readers)>, std::monostate>)
                    readers.told->gatherRepairs();
            },
            source.densified);
    output.commit();
    // Described; a masked input's specified elements are those its blocks' masks set, a sparse
    // one's those its blocks store.
    std::vector<std::int64_t> specifiedOfSources;
    for (const auto &source : sources)
        specifiedOfSources.push_back(source.specified);
    group.sum(specifiedOfSources);
    for (std::size_t k = 0; k < sources.size(); ++k)
        if (sources[k].input->masked || sources[k].input->densifiesByRows)
            sources[k].input->specified = specifiedOfSources[k];
    result.inputs = std::move(inputs);
    result.shape = plan.resultShape;
    result.layout = Layout::Dense;
    result.stored = numel(plan.resultShape);
    result.computeSeconds = computeSeconds;
    result.ioSeconds = secondsSince(start) - computeSeconds;
    return result;
}

} // namespace sparsity::core
