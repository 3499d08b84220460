// sparsity (and sparsity-mpi, the same tool over MPI ranks: docs/SCALING.md): the command-line
// tool. Parses arguments, runs the subcommand, and maps error families to exit codes
// (docs/CLI.md, "Exit codes and errors"): 0 ok, 1 a check or a batch input failed, 2 bad usage
// or input, 3 unreadable or unwritable file, 70 internal error. Errors are one line on stderr:
// "error: ...".
#include "app/cli/cli_output.h"
#include "app/cli/convert_command.h"
#include "app/cli/eval_command.h"
#include "app/cli/gradcheck_command.h"
#include "app/cli/inspect_command.h"
#include "app/cli/run_command.h"
#include "app/cli/sparsify_command.h"
#include "app/cli/step_command.h"
#include "core/device/device.h"
#include "core/io/h5_handle.h"
#include "core/parallel/rank_group.h"
#include "core/parallel/rank_session.h"
#include "core/util/allocator_tuning.h"
#include "core/util/errors.h"
#include "core/util/progress.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace {

using sparsity::core::RankSession;

std::string versionText()
{
    const auto &status = sparsity::core::deviceStatus();
    const auto ranks = RankSession::description();
    return std::string(RankSession::programName()) + " " + SPARSITY_VERSION + "\nCUDA: "
           + (status.cudaDevices > 0 ? status.cudaDescription
                                     : (status.cudaCompiled ? "compiled in, unavailable: " : "") + status.cudaDescription)
           + (ranks.empty() ? "" : "\n" + ranks);
}

// The command line run, to its exit code.
int runCommand(int argc, char **argv)
{
    RankSession session(argc, argv);
    auto fail = [&session](int code, const std::string &message) { return session.failWith(code, message); };
    CLI::App app{"Sparsity Workbench command-line tool: sparse and masked tensors in HDF5", RankSession::programName()};
    app.set_version_flag("--version", versionText);
    app.require_subcommand(1);
    app.fallthrough(false);
    sparsity::cli::addInspectCommand(app);
    sparsity::cli::addConvertCommand(app);
    sparsity::cli::addSparsifyCommand(app);
    sparsity::cli::addStepCommand(app);
    sparsity::cli::addEvalCommand(app);
    sparsity::cli::addGradcheckCommand(app);
    sparsity::cli::addRunCommand(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        sparsity::core::markFailureShared(); // every rank parsed the same arguments
        return fail(2, std::string(e.what()) + " (see " + RankSession::programName() + " --help)");
    } catch (const sparsity::core::Error &e) {
        return fail(e.exitCode(), e.what());
    } catch (const sparsity::cli::CheckFailed &) {
        return 1; // the report on stdout says what failed
    } catch (const sparsity::core::Cancelled &) {
        return fail(1, "cancelled");
    } catch (const std::bad_alloc &) {
        return fail(3, "out of memory");
    } catch (const std::filesystem::filesystem_error &e) {
        // A path the file system refused (too long, a loop of symlinks, no permission): the
        // environment's or the input's doing, not a bug.
        return fail(3, e.path1().string() + ": " + e.code().message());
    } catch (const std::exception &e) {
        return fail(70, std::string("internal error: ") + e.what());
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    sparsity::core::retainFreedHeapMemory();
    const int code = runCommand(argc, argv);
    // Every output was committed or removed by now. A file HDF5 failed to close (a full disk)
    // would crash its exit handler, so the process ends without it then.
    if (sparsity::core::hdf5HoldsAHalfClosedFile()) {
        std::cout.flush();
        std::cerr.flush();
        std::_Exit(code);
    }
    return code;
}
