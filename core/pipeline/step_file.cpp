#include "core/pipeline/step_file.h"

#include "core/device/device.h"
#include "core/device/gpu_steps.h"
#include "core/io/atomic_output.h"
#include "core/io/file_identity.h"
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/optim/optimizer_step.h"
#include "core/optim/semantics_comparison.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/step_blocks.h"
#include "core/pipeline/step_state_file.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/elapsed.h"
#include "core/util/errors.h"
#include "core/util/memory_budget.h"

namespace sparsity::core {
namespace {

struct Inputs {
    Tensor param;
    std::vector<NamedGradient> grads;
    std::optional<Tensor> mask;
    std::optional<H5File> previous;
};

Inputs readInputs(const StepRequest &request, const H5File &input, ValidationReport &report)
{
    Inputs inputs;
    std::string paramWhere; // named by the file it is read from, as the streamed step names it
    if (request.stateFrom) {
        inputs.previous.emplace(H5File::openRead(*request.stateFrom));
        inputs.param = readTensor(*inputs.previous, "/param", &report);
        paramWhere = inputs.previous->where("/param");
    } else if (request.paramFile) {
        const auto file = H5File::openRead(*request.paramFile);
        inputs.param = readTensor(file, *request.param, &report);
        paramWhere = file.where(*request.param);
    } else {
        inputs.param = readTensor(input, *request.param, &report);
        paramWhere = input.where(*request.param);
    }
    if (inputs.param.layout() != Layout::Dense || inputs.param.isMasked())
        report.add(Severity::Notice, "", paramWhere, "parameter densified for the step");
    for (const auto &path : request.grads)
        inputs.grads.push_back({input.where(path), readTensor(input, path, &report)});
    if (request.mask) {
        ValidationReport maskNotes; // its nonzeros are the mask: the type it is read in is no news
        inputs.mask = readTensor(input, *request.mask, &maskNotes);
        appendAllButConversions(report, maskNotes);
    }
    return inputs;
}

template <class T>
void writeResult(H5File &file, const DenseTensor<T> &param, const OptimizerState<T> &state)
{
    writeTensor(file, "/param", Tensor(Storage{param}));
    for (const auto &buffer : state.buffers)
        writeTensor(file, "/state/" + buffer.name, Tensor(Storage{buffer.value}));
    writeInt64Array(file, "/state/step", {}, &state.step);
    writeInt64Array(file, "/last_update", {static_cast<std::int64_t>(state.lastUpdate.size())}, state.lastUpdate.data());
}

} // namespace

StepReport stepFile(const StepRequest &request, ValidationReport &report, const ProgressCallback &progress)
{
    const auto start = Clock::now();
    const auto &group = ranks();
    StepReport result;
    std::vector<OptimizerOptions> compared;
    StepRowPlan plan;
    std::int64_t budget = 0;
    // Checked by every rank of a streamed step alike; agreed, so they stop together.
    agreeOn(group, [&] {
        refuseOverwritingInput(request.output, request.input);
        if (request.stateFrom)
            refuseOverwritingInput(request.output, *request.stateFrom);
        if (!request.param && !request.stateFrom)
            throw errors::mustBe("the parameter", "be given (or the state of a previous step's output)", "neither");
        if (request.grads.empty())
            throw errors::mustBe("a gradient", "be given (one step per gradient)", "none");
        result.options = resolveOptions(request.kind, request.semantics, request.rule, request.hyperparameters);
        // Compared semantics are resolved up front, so a rule's refusal is reported before any work.
        for (const auto semantics : request.compareWith) {
            try {
                compared.push_back(resolveOptions(request.kind, semantics, request.rule, request.hyperparameters));
            } catch (const Error &error) {
                rethrowWithContext(error, "compared with " + std::string(semanticsName(semantics)) + " semantics");
            }
        }
        result.device = resolveDevice(request.device);
        // A parameter read by rows steps by rows on the CPU: in bounded memory, with the same file.
        plan = planStepInRows(request, result.options, result.device);
        budget = resolveMemoryLimit(request.memoryLimit);
    });
    if (group.onEveryRank(plan.byRows))
        return stepInBlocks(request, plan, result.options, compared, report, budget, progress);
    const Device device = result.device;
    if (!group.isSolo())
        throw InternalError("step: a whole-tensor step runs on one rank (the command runs it on the root alone)");

    result.deviceInitSeconds = initDevice(device);
    const H5File input = H5File::openRead(request.input);
    const Inputs inputs = readInputs(request, input, report);
    const auto inputsRead = Clock::now();
    const Tensor *mask = inputs.mask ? &*inputs.mask : nullptr;

    AtomicOutput output(request.output);
    Clock::time_point computed;
    inputs.param.visit([&](const auto &storage) {
        using T = ValueOf<decltype(storage)>;
        auto original = toDenseAs<T>(inputs.param);
        // The compared runs start from the same state: the previous step's, or a fresh one.
        auto initial = inputs.previous ? readPreviousState<T>(*inputs.previous, result.options, original.shape)
                                       : initialState<T>(result.options, original.shape);
        const auto stepsBefore = initial.lastUpdate;
        requireMaskFitsSemantics(mask != nullptr, result.options); // the compared runs take it where masked
        std::vector<OptimizerOptions> runs{result.options};
        runs.insert(runs.end(), compared.begin(), compared.end());
        auto stepped = stepEachRun(
            std::move(original), std::move(initial), std::span<const OptimizerOptions>(runs), inputs.grads, mask, device,
            [](std::int64_t, const DenseTensor<T> &, const OptimizerState<T> &) {}, progress);
        auto &param = stepped.param;
        auto &state = stepped.state;
        for (std::size_t c = 0; c < compared.size(); ++c)
            result.divergence.push_back({compared[c].semantics, std::move(stepped.divergence[c])});
        computed = Clock::now();
        result.computeSeconds = secondsBetween(inputsRead, computed);
        result.paramShape = param.shape;
        result.dtype = dtypeOf<T>();
        result.stepsRun = static_cast<std::int64_t>(inputs.grads.size());
        result.finalStep = state.step;
        for (std::size_t r = 0; r < state.lastUpdate.size(); ++r)
            result.rowsWritten += state.lastUpdate[r] != stepsBefore[r];
        writeResult(output.file(), param, state);
    });
    output.commit();
    result.ioSeconds = secondsBetween(start, inputsRead) - result.deviceInitSeconds + secondsSince(computed);
    return result;
}

bool stepsByRows(const StepRequest &request)
{
    try {
        const auto options = resolveOptions(request.kind, request.semantics, request.rule, request.hyperparameters);
        return planStepInRows(request, options, resolveDevice(request.device)).byRows;
    } catch (const Error &) {
        return false;
    }
}

} // namespace sparsity::core
