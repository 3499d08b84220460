#pragma once
// AtomicOutput: an HDF5 output written to a temporary file beside the target and renamed over
// it on commit(). In sparsity-mpi every rank of ranks() constructs and commits it together
// (one shared file, renamed by the root). If commit() is never reached (an error, a cancel, SIGINT/SIGTERM: see
// temporary_file.h), the temporary file is removed, so a failed command leaves no partial
// output and an old target stays intact.
#include "core/io/h5_handle.h"
#include "core/io/temporary_file.h"

#include <optional>
#include <string>

namespace sparsity::core {

class AtomicOutput {
public:
    // Throws InputError when `target` cannot name a file (a NUL, longer than PATH_MAX, a name
    // longer than NAME_MAX: refused, never cut), IoError when its folder is missing or not
    // writable.
    explicit AtomicOutput(std::string target);
    AtomicOutput(const AtomicOutput &) = delete;
    AtomicOutput &operator=(const AtomicOutput &) = delete;
    ~AtomicOutput();

    H5File &file() { return *m_file; }
    const std::string &temporaryPath() const { return m_temporary->path(); }
    void commit();

private:
    std::string m_target;
    std::optional<TemporaryFile> m_temporary;
    std::optional<H5File> m_file;
    bool m_committed = false;
};

} // namespace sparsity::core
