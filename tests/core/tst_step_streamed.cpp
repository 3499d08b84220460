// The streamed step (stepFile: a block of rows at a time) against the whole-tensor step it
// replaces (stepEachRun on the densified parameter, in memory), byte for byte: every golden case
// of tests/data/golden/optim.h5, with every other semantics that can run compared, the parameter
// stored as each layout (dense, csr, row_sparse, coo with duplicates and a lone -0, csc, a
// masked_tensor of coo, csr or row_sparse data), the mask (where a case has one) stored dense,
// as coo (rows ascending, and reversed) and as row_sparse, the gradients as the golden file
// holds them and converted to csr and row_sparse (a masked one stays masked) and to coo and csc
// (read by bands under the small budgets), one row per block, in several bands of rows (a coo
// whose rows go back, a csc) and the default budget (one band); and resumed (--state-from)
// from a previous step's output whose parameter, states and /last_update are stored in each
// layout. The whole step reads its inputs from the same files. Where it fails, the streamed one
// fails with the same message and writes nothing.
#include "core/io/h5_writer.h"
#include "core/optim/semantics_comparison.h"
#include "core/pipeline/step_file.h"
#include "core/pipeline/step_state_file.h"
#include "core/tensor/conversions.h"
#include "core/tensor/tensor_ops.h"
#include "golden_cases.h"

#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cstring>
#include <filesystem>

using namespace sparsity;

class TestStepStreamed : public QObject {
    Q_OBJECT

private slots:
    void matchesWholeStep_data();
    void matchesWholeStep();
    void resumesFromStatesInEveryLayout_data();
    void resumesFromStatesInEveryLayout();
};

namespace {

enum class ParamLayout { Dense, Csr, RowSparse, CooWithDuplicates, CooByRows, Csc, MaskedCoo, MaskedCsr, MaskedRowSparse };

const std::pair<ParamLayout, const char *> kParamLayouts[] = {
    {ParamLayout::Dense, "dense"},
    {ParamLayout::Csr, "csr"},
    {ParamLayout::RowSparse, "row_sparse"},
    {ParamLayout::CooWithDuplicates, "coo"},
    {ParamLayout::CooByRows, "coo_by_rows"},
    {ParamLayout::Csc, "csc"},
    {ParamLayout::MaskedCoo, "masked_coo"},
    {ParamLayout::MaskedCsr, "masked_csr"},
    {ParamLayout::MaskedRowSparse, "masked_row_sparse"},
};

// Budgets (bytes; 0 the default): one row per block, and for a coo whose rows go back or a csc,
// which are read in bands of rows where held whole they would not fit their share of the budget
// (bands of half that share, 48 bytes a stored value), one small enough that a golden parameter
// (and, resuming, its states) takes several bands.
constexpr int kDefaultBudget = 0;
constexpr int kRowPerBlock = 1;
constexpr int kSeveralBands = 512;         // the parameter alone
constexpr int kSeveralBandsResumed = 2048; // the parameter, its states and /last_update

std::vector<int> budgetsFor(ParamLayout layout, int bands = kSeveralBands)
{
    if (layout == ParamLayout::CooWithDuplicates || layout == ParamLayout::Csc)
        return {kRowPerBlock, bands, kDefaultBudget};
    return {kRowPerBlock, kDefaultBudget};
}

const char *budgetName(int budget) { return budget == kRowPerBlock ? "row" : budget == kDefaultBudget ? "default" : "bands"; }

// `sparse` as a masked_tensor whose mask leaves every third stored element unspecified.
core::Tensor withEveryThirdUnspecified(core::Tensor sparse)
{
    core::Mask mask(static_cast<std::size_t>(sparse.storedCount()));
    for (std::size_t k = 0; k < mask.size(); ++k)
        mask[k] = k % 3 != 1;
    sparse.setMask(std::move(mask));
    return sparse;
}

// A coo of `shape` holding entries `linear` (row-major positions) with `values`, in that order,
// duplicates kept.
template <class T>
core::Tensor cooAsListed(const core::Shape &shape, const std::vector<std::int64_t> &linear, const core::Buffer<T> &values)
{
    core::CooTensor<T> coo;
    coo.shape = shape;
    coo.sparseDims = static_cast<int>(shape.size());
    coo.nnz = static_cast<std::int64_t>(linear.size());
    coo.values = values;
    coo.indices.resize(static_cast<std::size_t>(coo.sparseDims * coo.nnz));
    for (std::int64_t k = 0; k < coo.nnz; ++k) {
        auto rest = linear[static_cast<std::size_t>(k)];
        for (int d = coo.sparseDims - 1; d >= 0; --d) {
            coo.indices[static_cast<std::size_t>(d * coo.nnz + k)] = rest % shape[static_cast<std::size_t>(d)];
            rest /= shape[static_cast<std::size_t>(d)];
        }
    }
    return core::Tensor(core::Storage{std::move(coo)});
}

// The golden parameter stored as `layout`. The coo ones store each element as two entries (a
// half, then the rest) and a -0 of their own for the last element, so densifying sums
// duplicates: "coo" lists all the halves in reverse order of elements first (its rows go back:
// read whole), "coo_by_rows" each row's entries together, rows ascending (read by rows). The
// masked one leaves every third element unspecified (densified to 0).
template <class T>
core::Tensor storedAs(const core::DenseTensor<T> &dense, ParamLayout layout)
{
    switch (layout) {
    case ParamLayout::Dense:
        return core::Tensor(core::Storage{dense});
    case ParamLayout::Csr:
        return core::Tensor(core::Storage{core::denseToCompressed(dense, core::CompressedAxis::Row)});
    case ParamLayout::RowSparse:
        return core::Tensor(core::Storage{core::denseToRowSparse(dense)});
    case ParamLayout::Csc:
        return core::Tensor(core::Storage{core::denseToCompressed(dense, core::CompressedAxis::Column)});
    case ParamLayout::CooWithDuplicates:
    case ParamLayout::CooByRows: {
        std::vector<std::int64_t> linear;
        core::Buffer<T> values;
        const auto n = static_cast<std::int64_t>(dense.values.size());
        const auto half = [&](std::int64_t k) { return dense.values[static_cast<std::size_t>(k)] * T(0.5); };
        const auto rest = [&](std::int64_t k) { return dense.values[static_cast<std::size_t>(k)] - half(k); };
        const auto add = [&](std::int64_t k, T v) {
            linear.push_back(k);
            values.push_back(v);
        };
        if (layout == ParamLayout::CooWithDuplicates) {
            for (auto k = n - 1; k >= 0; --k)
                add(k, half(k));
            for (std::int64_t k = 0; k < n; ++k)
                add(k, rest(k));
        } else {
            const auto width = dense.shape.empty() || dense.shape[0] == 0 ? n : n / dense.shape[0];
            for (std::int64_t first = 0; first < n; first += std::max<std::int64_t>(1, width)) {
                const auto end = std::min(n, first + std::max<std::int64_t>(1, width));
                for (auto k = end - 1; k >= first; --k)
                    add(k, half(k));
                for (auto k = first; k < end; ++k)
                    add(k, rest(k));
            }
        }
        if (n > 0)
            add(n - 1, -T(0));
        return cooAsListed<T>(dense.shape, linear, values);
    }
    case ParamLayout::MaskedCoo: // coalesced, its rows ascending: read by rows, data and mask
        return withEveryThirdUnspecified(core::Tensor(core::Storage{core::denseToCoo(dense)}));
    case ParamLayout::MaskedCsr: // read by rows, data and mask
        return withEveryThirdUnspecified(core::Tensor(core::Storage{core::denseToCompressed(dense, core::CompressedAxis::Row)}));
    case ParamLayout::MaskedRowSparse:
        return withEveryThirdUnspecified(core::Tensor(core::Storage{core::denseToRowSparse(dense)}));
    }
    return {};
}

std::vector<std::uint32_t> bitsOf(const core::DenseTensor<float> &t)
{
    std::vector<std::uint32_t> bits(t.values.size());
    std::memcpy(bits.data(), t.values.data(), bits.size() * sizeof(float));
    return bits;
}

// The golden case's optimizer, semantics, rule and hyperparameters.
template <class Golden>
void takeOptions(core::StepRequest &request, const Golden &golden)
{
    request.kind = golden.options.kind;
    request.semantics = golden.options.semantics;
    request.rule = golden.options.rule;
    request.hyperparameters = golden.hyperparameters;
}

// Runs `request` (streamed) and the whole step of `runs` from `param` and `state` on the same
// inputs, and compares what they write (or the messages they fail with), bit for bit.
void expectWholeStepsBytes(const core::StepRequest &request,
                           const std::vector<core::OptimizerOptions> &runs,
                           core::DenseTensor<float> param,
                           core::OptimizerState<float> state,
                           bool streams = true)
{
    const auto in = core::H5File::openRead(request.input);
    std::vector<core::NamedGradient> grads;
    for (const auto &path : request.grads)
        grads.push_back({in.where(path), core::readTensor(in, path)});
    const auto mask = request.mask ? std::optional<core::Tensor>(core::readTensor(in, *request.mask)) : std::nullopt;
    std::optional<core::SteppedRuns<float>> whole;
    std::string wholeError;
    try {
        whole = core::stepEachRun(std::move(param), std::move(state), std::span<const core::OptimizerOptions>(runs), grads,
                                  mask ? &*mask : nullptr, core::Device::Cpu, [](std::int64_t, const auto &, const auto &) {});
    } catch (const core::InputError &error) {
        wholeError = error.what();
    }

    core::ValidationReport report;
    std::optional<core::StepReport> streamed;
    try {
        streamed = core::stepFile(request, report, {});
    } catch (const core::InputError &error) {
        QCOMPARE(QString::fromStdString(error.what()), QString::fromStdString(wholeError));
        QVERIFY(!std::filesystem::exists(request.output));
        return;
    }
    QVERIFY2(whole, qPrintable(QStringLiteral("the whole step failed (%1); the streamed one ran").arg(wholeError.c_str())));
    QCOMPARE(streamed->streamed, streams);

    const auto out = core::H5File::openRead(request.output);
    QCOMPARE(bitsOf(core::toDenseAs<float>(core::readTensor(out, "/param"))), bitsOf(whole->param));
    for (const auto &buffer : whole->state.buffers)
        QCOMPARE(bitsOf(core::toDenseAs<float>(core::readTensor(out, "/state/" + buffer.name))), bitsOf(buffer.value));
    const auto last = core::toDenseDouble(core::readTensor(out, "/last_update"));
    QCOMPARE((std::vector<std::int64_t>(last.values.begin(), last.values.end())),
             (std::vector<std::int64_t>(whole->state.lastUpdate.begin(), whole->state.lastUpdate.end())));
    QCOMPARE(streamed->finalStep, whole->state.step);
    QCOMPARE(streamed->divergence.size(), whole->divergence.size());
    for (std::size_t c = 0; c < whole->divergence.size(); ++c)
        for (std::size_t t = 0; t < whole->divergence[c].size(); ++t) {
            const auto &a = streamed->divergence[c].tensors[t], &b = whole->divergence[c][t];
            QCOMPARE(a.name, b.name);
            QCOMPARE(a.maxAbsDiff, b.maxAbsDiff);
            QCOMPARE(a.differingRows, b.differingRows);
        }
}

// `mask` stored as `layout` (matchesWholeStep's maskLayout column).
core::Tensor maskStoredAs(const core::Tensor &mask, const QString &layout)
{
    if (layout.isEmpty())
        return mask;
    if (layout == "row_sparse")
        return core::toLayout(mask, core::Layout::RowSparse);
    auto coo = core::toLayout(mask, core::Layout::Coo);
    if (layout == "coo reversed")
        std::visit(
            [](auto &t) {
                if constexpr (requires { t.sparseDims; }) {
                    for (int d = 0; d < t.sparseDims; ++d)
                        std::reverse(t.indices.begin() + d * t.nnz, t.indices.begin() + (d + 1) * t.nnz);
                    std::reverse(t.values.begin(), t.values.end());
                    t.coalesced = false;
                }
            },
            coo.storage());
    return coo;
}

} // namespace

void TestStepStreamed::matchesWholeStep_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("layout");
    QTest::addColumn<int>("budget");
    // The mask as the golden file holds it (dense), or stored sparse: as coo (coalesced, read by
    // rows), as coo with its entries reversed (rows going back: read once) and as row_sparse
    // (read by rows).
    QTest::addColumn<QString>("maskLayout");
    // The gradients as the golden file holds them, or converted (their masks kept) to a layout
    // read by rows: csr, row_sparse (the parameter dense).
    QTest::addColumn<QString>("gradLayout");
    const auto golden = core::H5File::openRead(test::kOptimGolden);
    const auto names = test::goldenCaseNames(golden);
    QVERIFY(names.size() >= 15);
    for (const auto &name : names) {
        const bool hasMask = core::linkExists(golden.id(), "/" + name + "/mask");
        for (const auto &[layout, layoutName] : kParamLayouts)
            for (const auto budget : budgetsFor(layout))
                for (const char *maskLayout : {"", "coo", "coo reversed", "row_sparse"})
                    if (hasMask || !*maskLayout)
                        QTest::addRow("%s/%s/%s%s%s", name.c_str(), layoutName, budgetName(budget), *maskLayout ? "/mask " : "",
                                      maskLayout)
                            << QString::fromStdString(name) << static_cast<int>(layout) << budget
                            << QString::fromLatin1(maskLayout) << QString();
        for (const char *gradLayout : {"csr", "row_sparse"})
            for (const auto budget : {kRowPerBlock, kDefaultBudget})
                QTest::addRow("%s/dense/%s/grads %s", name.c_str(), budgetName(budget), gradLayout)
                    << QString::fromStdString(name) << static_cast<int>(ParamLayout::Dense) << budget << QString()
                    << QString::fromLatin1(gradLayout);
        // Read by bands where held whole they would not fit the budget: under one row a block,
        // spilled sorted by row (a read per block), and under kSeveralBands (a few blocks, scanned
        // or spilled as they number).
        for (const char *gradLayout : {"coo", "csc"})
            for (const auto budget : {kRowPerBlock, kSeveralBands, kDefaultBudget})
                QTest::addRow("%s/dense/%s/grads %s", name.c_str(), budgetName(budget), gradLayout)
                    << QString::fromStdString(name) << static_cast<int>(ParamLayout::Dense) << budget << QString()
                    << QString::fromLatin1(gradLayout);
    }
}

void TestStepStreamed::matchesWholeStep()
{
    QFETCH(QString, name);
    QFETCH(int, layout);
    QFETCH(int, budget);
    QFETCH(QString, maskLayout);
    QFETCH(QString, gradLayout);
    const auto golden = test::loadGoldenCase(core::H5File::openRead(test::kOptimGolden), name.toStdString());
    QTemporaryDir dir;
    const auto input = dir.filePath("in.h5").toStdString(), output = dir.filePath("out.h5").toStdString();

    // The input file: the parameter in its layout, the golden gradients and mask as they are.
    const auto param = storedAs(golden.param, static_cast<ParamLayout>(layout));
    core::StepRequest request;
    request.input = input;
    request.output = output;
    request.param = "/param";
    {
        auto file = core::H5File::create(input);
        core::writeTensor(file, "/param", param);
        for (std::size_t g = 0; g < golden.grads.size(); ++g) {
            request.grads.push_back("/grad" + std::to_string(g));
            const auto &grad = golden.grads[g].tensor;
            const auto stored = core::parseLayout(gradLayout.toStdString());
            if (stored && !core::layoutAcceptsRank(*stored, static_cast<int>(grad.rank())))
                QSKIP("the gradients have no rows for this layout");
            core::writeTensor(file, request.grads.back(), stored ? core::toLayout(grad, *stored) : grad);
        }
        if (golden.mask) {
            request.mask = "/mask";
            core::writeTensor(file, "/mask", maskStoredAs(*golden.mask, maskLayout));
        }
        file.close();
    }
    const auto &options = golden.options;
    takeOptions(request, golden);
    std::vector<core::OptimizerOptions> runs{options};
    for (const auto semantics : {core::Semantics::Dense, core::Semantics::Lazy, core::Semantics::Masked}) {
        if (semantics == options.semantics)
            continue;
        try {
            runs.push_back(core::resolveOptions(options.kind, semantics, options.rule, request.hyperparameters));
            request.compareWith.push_back(semantics);
        } catch (const core::InputError &) {
            // a rule's refusal (sparse Adagrad with weight decay, ...): not compared
        }
    }
    if (budget != kDefaultBudget)
        request.memoryLimit = budget;

    // The whole step, in memory, on the inputs as the file holds them.
    const auto in = core::H5File::openRead(input);
    expectWholeStepsBytes(request, runs, core::toDenseAs<float>(core::readTensor(in, "/param")),
                          core::initialState<float>(options, golden.param.shape));
}

void TestStepStreamed::resumesFromStatesInEveryLayout_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("layout");
    QTest::addColumn<int>("budget");
    // The parameter in the layout too, float32 as the states; or dense, the states float64 (read
    // converted to the parameter's float32; one read once is summed in float64 by the whole step,
    // which then runs instead).
    QTest::addColumn<bool>("float64States");
    const auto golden = core::H5File::openRead(test::kOptimGolden);
    for (const auto &name : test::goldenCaseNames(golden))
        for (const auto &[layout, layoutName] : kParamLayouts)
            for (const auto budget : budgetsFor(layout, kSeveralBandsResumed))
                for (const bool float64States : {false, true})
                    QTest::addRow("%s/%s/%s%s", name.c_str(), layoutName, budgetName(budget),
                                  float64States ? "/float64 states" : "")
                        << QString::fromStdString(name) << static_cast<int>(layout) << budget << float64States;
}

// A first step writes PREV; its parameter, states and /last_update are stored again in `layout`
// (/last_update, with one dim, as the nearest layout that has one: row_sparse for csr, coo for
// csc); the second step resumes from it, streamed and whole.
void TestStepStreamed::resumesFromStatesInEveryLayout()
{
    QFETCH(QString, name);
    QFETCH(int, layout);
    QFETCH(int, budget);
    QFETCH(bool, float64States);
    const auto golden = test::loadGoldenCase(core::H5File::openRead(test::kOptimGolden), name.toStdString());
    QTemporaryDir dir;
    const auto input = dir.filePath("in.h5").toStdString(), previous = dir.filePath("prev.h5").toStdString();
    core::StepRequest request;
    request.input = input;
    request.output = previous;
    request.param = "/param";
    {
        auto file = core::H5File::create(input);
        core::writeTensor(file, "/param", core::Tensor(core::Storage{golden.param}));
        for (std::size_t g = 0; g < golden.grads.size(); ++g) {
            request.grads.push_back("/grad" + std::to_string(g));
            core::writeTensor(file, request.grads.back(), golden.grads[g].tensor);
        }
        if (golden.mask) {
            request.mask = "/mask";
            core::writeTensor(file, "/mask", *golden.mask);
        }
        file.close();
    }
    const auto &options = golden.options;
    takeOptions(request, golden);
    core::ValidationReport report;
    try {
        core::stepFile(request, report, {});
    } catch (const core::InputError &) {
        QSKIP("the case's first step fails: nothing to resume from");
    }

    // PREV rewritten in the layout.
    const auto stored = static_cast<ParamLayout>(layout);
    const auto oneDim = stored == ParamLayout::Csr         ? ParamLayout::RowSparse
                        : stored == ParamLayout::Csc       ? ParamLayout::CooWithDuplicates
                        : stored == ParamLayout::MaskedCsr ? ParamLayout::MaskedRowSparse
                                                           : stored;
    {
        const auto written = core::H5File::openRead(previous);
        auto file = core::H5File::create(dir.filePath("prev_in_layout.h5").toStdString());
        core::writeTensor(
            file, "/param",
            storedAs(core::toDenseAs<float>(core::readTensor(written, "/param")), float64States ? ParamLayout::Dense : stored));
        for (const auto &state : core::stateNames(options)) {
            const auto value = core::readTensor(written, "/state/" + state);
            core::writeTensor(file, "/state/" + state,
                              float64States ? storedAs(core::toDenseDouble(value), stored)
                                            : storedAs(core::toDenseAs<float>(value), stored));
        }
        core::writeTensor(file, "/state/step", core::readTensor(written, "/state/step"));
        core::writeTensor(file, "/last_update", storedAs(core::toDenseDouble(core::readTensor(written, "/last_update")), oneDim));
        file.close();
    }
    request.stateFrom = dir.filePath("prev_in_layout.h5").toStdString();
    request.output = dir.filePath("out.h5").toStdString();
    std::vector<core::OptimizerOptions> runs{options};
    if (budget != kDefaultBudget)
        request.memoryLimit = budget;

    const auto prev = core::H5File::openRead(*request.stateFrom);
    const auto param = core::toDenseAs<float>(core::readTensor(prev, "/param"));
    // Read once, and so summed in its own float64 (a coo whose rows ascend, masked or not, is
    // densified a block of rows at a time, in float64, as the whole step densifies it).
    const bool readOnce = stored == ParamLayout::CooWithDuplicates || stored == ParamLayout::Csc;
    expectWholeStepsBytes(request, runs, param, core::readPreviousState<float>(prev, options, param.shape),
                          !(float64States && readOnce && !core::stateNames(options).empty()));
}

QTEST_GUILESS_MAIN(TestStepStreamed)
#include "tst_step_streamed.moc"
