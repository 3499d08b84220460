#include "core/io/temporary_file.h"

#include "core/parallel/rank_group.h"

#include <array>
#include <atomic>
#include <climits>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <unistd.h>

namespace sparsity::core {
namespace {

// The table the signal handler reads. A slot's path is written before `used` is set and the
// slot is cleared before the path is overwritten, so the handler never sees a half-written name.
struct Slot {
    std::atomic<bool> used{false};
    char path[PATH_MAX];
};
constexpr std::size_t kSlots = 32;
std::array<Slot, kSlots> slots;
std::mutex slotsMutex; // between threads registering; the handler takes no lock

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void removeTemporariesAndDie(int signal)
{
    removeTemporaryFilesNow();
    // The default action, so the parent sees "killed by SIGINT" (shell status 130, 143).
    struct sigaction defaultAction {};
    defaultAction.sa_handler = SIG_DFL;
    sigemptyset(&defaultAction.sa_mask);
    ::sigaction(signal, &defaultAction, nullptr);
    ::raise(signal);
}

void installHandlersOnce()
{
    static std::once_flag once;
    std::call_once(once, [] {
        for (const int signal : kSignals) {
            struct sigaction current {};
            if (::sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO))
                continue; // ignored, or someone else's handler: keep it
            struct sigaction action {};
            action.sa_handler = removeTemporariesAndDie;
            sigemptyset(&action.sa_mask);
            for (const int other : kSignals)
                sigaddset(&action.sa_mask, other);
            ::sigaction(signal, &action, nullptr);
        }
    });
}

int registerPath(const std::string &path)
{
    installHandlersOnce();
    if (path.size() >= PATH_MAX)
        return -1;
    const std::lock_guard lock(slotsMutex);
    for (std::size_t i = 0; i < kSlots; ++i) {
        if (slots[i].used.load(std::memory_order_relaxed))
            continue;
        std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
        slots[i].used.store(true, std::memory_order_release);
        return static_cast<int>(i);
    }
    return -1; // more temporaries at once than the table holds: removed on errors, not on signals
}

void unregisterSlot(int slot)
{
    if (slot < 0)
        return;
    const std::lock_guard lock(slotsMutex);
    slots[static_cast<std::size_t>(slot)].used.store(false, std::memory_order_release);
}

} // namespace

void removeTemporaryFilesNow()
{
    for (auto &slot : slots)
        if (slot.used.load(std::memory_order_acquire))
            ::unlink(slot.path);
}

TemporaryFile::TemporaryFile(const std::string &target)
{
    namespace fs = std::filesystem;
    static std::atomic<int> counter{0};
    const fs::path targetPath(target);
    const fs::path folder = targetPath.has_parent_path() ? targetPath.parent_path() : fs::path(".");
    std::string name(".sw-tmp-");
    name.append(std::to_string(::getpid())).append("-").append(std::to_string(counter++));
    // The ranks sharing an output share its temporary name: the root's.
    m_path = ranks().broadcast((folder / name).string());
    // Absolute, so the handler's unlink does not depend on the working folder.
    std::error_code ec;
    const auto absolute = fs::absolute(m_path, ec);
    m_slot = registerPath(ec ? m_path : absolute.string());
}

TemporaryFile::~TemporaryFile()
{
    if (!m_released) {
        std::error_code ec;
        std::filesystem::remove(m_path, ec);
    }
    unregisterSlot(m_slot);
}

void TemporaryFile::release()
{
    m_released = true;
    unregisterSlot(m_slot);
    m_slot = -1;
}

} // namespace sparsity::core
