#include "app/cli/rank_dispatch.h"

#include "app/cli/cli_output.h"
#include "core/parallel/rank_group.h"

#include <exception>

namespace sparsity::cli {

void onRootAlone(const std::function<void()> &command)
{
    const auto &group = core::ranks();
    if (group.isSolo()) {
        command();
        return;
    }
    std::exception_ptr failure;
    bool checkFailed = false;
    if (group.isRoot()) {
        const core::SoloRanksScope alone(core::SoloRanksScope::Machine::ToItself);
        try {
            command();
        } catch (const CheckFailed &) {
            checkFailed = true;
        } catch (...) {
            failure = std::current_exception();
        }
    }
    group.waitIdle();
    group.agree(failure);
    if (group.sum(checkFailed ? 1 : 0) > 0)
        throw CheckFailed{};
}

} // namespace sparsity::cli
