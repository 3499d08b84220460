#include "core/pipeline/batch_run.h"

#include "core/io/atomic_output.h"
#include "core/io/h5_catalog.h"
#include "core/io/temporary_file.h"
#include "core/util/elapsed.h"
#include "core/util/errors.h"

#include <filesystem>

namespace sparsity::core {
namespace {

namespace fs = std::filesystem;

SparsifyRequest sparsifyRequest(const BatchRecipe &recipe, const std::string &input, const std::string &output)
{
    SparsifyRequest r = *recipe.sparsify;
    r.input = input;
    r.output = output;
    r.datasets = recipe.datasets;
    r.masked = recipe.layout == "masked";
    r.layout = r.masked ? Layout::Dense : *parseLayout(recipe.layout);
    r.device = recipe.device;
    if (!r.memoryLimit) // sparsify.memory_limit, else the recipe's
        r.memoryLimit = recipe.memoryLimit;
    r.writeOptions.gzipLevel = recipe.gzipLevel;
    return r;
}

StepRequest stepRequest(const BatchRecipe &recipe, const std::string &input, const std::string &output)
{
    StepRequest r = *recipe.step;
    r.input = input;
    r.output = output;
    r.device = recipe.device;
    r.memoryLimit = recipe.memoryLimit;
    return r;
}

// Every top-level element of `from` into `to` (attributes included), refusing a name both have.
void copyElements(const std::string &from, H5File &to, const std::string &target)
{
    const H5File source = H5File::openRead(from);
    for (const auto &name : childNames(source, "/")) {
        if (linkExists(to.id(), "/" + name))
            throw InputError(target + ": the sparsified dataset /" + name + " has the name of a step output");
        if (H5Ocopy(source.id(), name.c_str(), to.id(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT) < 0)
            throw IoError(target + ": cannot copy /" + name + " from " + from);
    }
}

void run(const BatchRecipe &recipe, const BatchJob &job, BatchInputReport &report, const ProgressCallback &progress)
{
    const fs::path folder = fs::path(job.output).parent_path();
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec)
        throw IoError(job.output + ": cannot create the output folder " + folder.string() + ": " + ec.message());
    if (recipe.sparsify && !recipe.step) {
        report.sparsified = sparsifyFile(sparsifyRequest(recipe, job.input, job.output), report.notes, progress);
        return;
    }
    if (recipe.step && !recipe.sparsify) {
        report.step = stepFile(stepRequest(recipe, job.input, job.output), report.notes, progress);
        return;
    }
    // Intermediates beside the output, removed when this scope ends (or on SIGINT/SIGTERM).
    const TemporaryFile sparsified(job.output), stepped(job.output);
    report.sparsified = sparsifyFile(sparsifyRequest(recipe, job.input, sparsified.path()), report.notes, progress);
    auto step = stepRequest(recipe, job.input, stepped.path());
    step.paramFile = sparsified.path();
    report.step = stepFile(step, report.notes, progress);
    AtomicOutput output(job.output);
    copyElements(stepped.path(), output.file(), job.output);
    copyElements(sparsified.path(), output.file(), job.output);
    output.commit();
}

} // namespace

BatchInputReport runBatchJob(const BatchRecipe &recipe, const BatchJob &job, const ProgressCallback &progress)
{
    BatchInputReport report;
    report.job = job;
    const auto start = Clock::now();
    try {
        run(recipe, job, report, progress);
        report.ok = true;
    } catch (const Error &error) {
        report.error = error.what();
    } catch (const std::bad_alloc &) {
        report.error = job.input + ": out of memory";
    } catch (const std::length_error &) {
        report.error = job.input + ": out of memory (a size larger than any allocation)";
    }
    report.seconds = secondsSince(start);
    return report;
}

} // namespace sparsity::core
