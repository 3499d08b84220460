#include "core/io/temporary_file.h"

#include "core/parallel/rank_group.h"

#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <signal.h>
#include <unistd.h>

namespace sparsity::core {
namespace {

// The table the signal handler reads. A slot's path is written before `used` is set and the
// slot is cleared before the path is overwritten, so the handler never sees a half-written name.
// Constant-initialised (all zero, in .bss): a dynamic initialiser touched the table's 128 KiB at
// every start, 31 page faults of the 280 that `sparsity --help` takes.
struct Slot {
    std::atomic<bool> used{false};
    char path[PATH_MAX] = {};
};
constexpr std::size_t kSlots = 32;
constinit std::array<Slot, kSlots> slots;
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

constexpr std::string_view kPrefix = ".sw-tmp-";

// This host's name as a temporary name ends with it: letters, digits, '.' and '-', at most 64.
const std::string &hostTag()
{
    static const std::string tag = [] {
        char host[256] = {};
        if (::gethostname(host, sizeof host - 1) != 0)
            return std::string("host");
        std::string out;
        for (const char *c = host; *c != '\0' && out.size() < 64; ++c)
            if (std::isalnum(static_cast<unsigned char>(*c)) || *c == '.' || *c == '-')
                out.push_back(*c);
        return out.empty() ? std::string("host") : out;
    }();
    return tag;
}

// The pid of a temporary name of this host (".sw-tmp-<pid>-<n>-<host>"), or -1.
pid_t ownPid(std::string_view name)
{
    if (!name.starts_with(kPrefix))
        return -1;
    name.remove_prefix(kPrefix.size());
    const auto pidEnd = name.find('-');
    const auto counterEnd = pidEnd == std::string_view::npos ? pidEnd : name.find('-', pidEnd + 1);
    if (pidEnd == 0 || counterEnd == std::string_view::npos || name.substr(counterEnd + 1) != hostTag())
        return -1;
    pid_t pid = 0;
    for (const char c : name.substr(0, pidEnd)) {
        if (c < '0' || c > '9' || pid > 100'000'000)
            return -1;
        pid = pid * 10 + (c - '0');
    }
    return pid;
}

// Removes the temporary files in `folder` that killed processes of this host left (see the
// header); each folder once per process.
void removeStaleTemporaries(const std::filesystem::path &folder)
{
    namespace fs = std::filesystem;
    static std::mutex mutex;
    static std::set<std::string> swept;
    const std::lock_guard lock(mutex);
    if (!swept.insert(folder.string()).second)
        return;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const auto name = it->path().filename().string();
        const pid_t pid = ownPid(name);
        if (pid <= 0 || pid == ::getpid())
            continue;
        if (::kill(pid, 0) == 0 || errno != ESRCH)
            continue; // alive, or not ours to signal (EPERM): someone's
        std::error_code timeError;
        const auto written = fs::last_write_time(it->path(), timeError);
        if (timeError || fs::file_time_type::clock::now() - written < std::chrono::minutes(1))
            continue;
        std::error_code removeError;
        fs::remove(it->path(), removeError);
    }
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
    std::string name(kPrefix);
    name.append(std::to_string(::getpid())).append("-").append(std::to_string(counter++)).append("-").append(hostTag());
    // The ranks sharing an output share its temporary name: the root's, which sweeps the folder.
    if (ranks().isRoot())
        removeStaleTemporaries(folder);
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
