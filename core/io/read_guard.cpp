#include "core/io/read_guard.h"

#include "core/io/temporary_file.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

namespace sparsity::core {
namespace {

bool enabled = false;
unsigned limitSeconds = 10;
volatile std::sig_atomic_t guarding = 0;
// The two messages of the guarded read, formatted before it starts: the handler cannot.
char crashMessage[4096];
char hangMessage[4096];
std::size_t crashLength = 0, hangLength = 0;
alignas(16) char alternateStack[64 * 1024];

void writeAll(const char *text, std::size_t length)
{
    while (length > 0) {
        const ssize_t written = ::write(STDERR_FILENO, text, length);
        if (written <= 0)
            return;
        text += written;
        length -= static_cast<std::size_t>(written);
    }
}

extern "C" void endGuardedRead(int signal)
{
    if (!guarding) {
        // Not in a guarded read: a crash elsewhere stays a crash.
        std::signal(signal, SIG_DFL);
        ::raise(signal);
        return;
    }
    if (signal == SIGALRM)
        writeAll(hangMessage, hangLength);
    else
        writeAll(crashMessage, crashLength);
    removeTemporaryFilesNow();
    ::_exit(3);
}

std::string nameOf(hid_t object)
{
    char file[1024] = "";
    char path[1024] = "";
    H5Fget_name(object, file, sizeof file);
    H5Iget_name(object, path, sizeof path);
    return std::string(file) + ":" + (path[0] ? path : "/");
}

std::size_t format(char *buffer, const std::string &text)
{
    const auto length = std::min(text.size(), std::size_t{4095});
    std::memcpy(buffer, text.data(), length);
    buffer[length] = '\0';
    return length;
}

} // namespace

void enableReadGuards(unsigned seconds)
{
    enabled = true;
    limitSeconds = seconds;
    stack_t stack{};
    stack.ss_sp = alternateStack;
    stack.ss_size = sizeof alternateStack;
    ::sigaltstack(&stack, nullptr);
    struct sigaction action {};
    action.sa_handler = endGuardedRead;
    action.sa_flags = SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (const int signal : {SIGSEGV, SIGBUS, SIGALRM}) {
        struct sigaction current {};
        // A sanitizer's or debugger's crash handler stays: its report is worth more than ours.
        if (signal != SIGALRM && (::sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL))
            continue;
        ::sigaction(signal, &action, nullptr);
    }
}

ReadGuard::ReadGuard(hid_t object, const char *attribute)
{
    if (!enabled)
        return;
    const std::string where = "error: " + nameOf(object) + ": cannot read attribute '" + attribute + "': ";
    crashLength = format(crashMessage, where + "HDF5 crashed reading it (file corrupt: global heap?)\n");
    hangLength = format(hangMessage, where + "HDF5 did not finish reading it in " + std::to_string(limitSeconds)
                                         + " s (file corrupt: global heap?)\n");
    guarding = 1;
    ::alarm(limitSeconds);
    m_active = true;
}

ReadGuard::~ReadGuard()
{
    if (!m_active)
        return;
    ::alarm(0);
    guarding = 0;
}

} // namespace sparsity::core
