#pragma once
// TemporaryFile: the name of a file that must not outlive the work it is part of (an output
// being written before its rename, an intermediate of a batch). The name is short,
// ".sw-tmp-<pid>-<n>-<host>" beside the target, so it fits NAME_MAX whatever the target's own
// name is (a 255-byte output name is legal; a temporary name derived from it would not be).
//
// While a TemporaryFile lives, its path sits in a fixed table that a SIGINT/SIGTERM/SIGHUP
// handler reads: Ctrl-C or a kill during a long write removes the temporary file (unlink is
// async-signal-safe), then the signal's default action ends the process (exit status 130/143).
// The handler is installed only for signals whose disposition is the default, so an
// application's own handlers (Qt's, a test harness's) are left alone.
//
// Nothing runs on SIGKILL (the OOM killer's signal) or a power cut, so the first temporary
// file a process names in a folder first removes the temporary files there that a process of
// the same host left: its pid no longer exists and the file was last written over a minute ago
// (a writer in another pid namespace of the same host name may look dead; it still writes).
// Files of other hosts (a shared file system) are left alone.
#include <string>

namespace sparsity::core {

class TemporaryFile {
public:
    // A fresh name in the folder of `target`; nothing is created. Collective: the ranks of
    // ranks() get the same name.
    explicit TemporaryFile(const std::string &target);
    TemporaryFile(const TemporaryFile &) = delete;
    TemporaryFile &operator=(const TemporaryFile &) = delete;
    // Removes the file unless released.
    ~TemporaryFile();

    const std::string &path() const { return m_path; }
    // The file was renamed to its target: neither the destructor nor a signal removes it now.
    void release();

private:
    std::string m_path;
    int m_slot = -1;
    bool m_released = false;
};

// Unlinks every registered temporary file; async-signal-safe, for other fatal-signal handlers.
void removeTemporaryFilesNow();

} // namespace sparsity::core
