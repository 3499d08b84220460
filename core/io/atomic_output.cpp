#include "core/io/atomic_output.h"

#include "core/util/errors.h"

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace sparsity::core {

AtomicOutput::AtomicOutput(std::string target) : m_target(std::move(target))
{
    namespace fs = std::filesystem;
    const fs::path targetPath(m_target);
    const fs::path folder = targetPath.has_parent_path() ? targetPath.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        throw IoError(m_target + ": cannot write: folder " + folder.string() + " does not exist");
    if (::access(folder.c_str(), W_OK) != 0)
        throw IoError(m_target + ": cannot write: folder " + folder.string() + " is not writable");
    static std::atomic<int> counter{0};
    // Appends rather than operator+: GCC 12 warns falsely (-Wrestrict) on "." + std::string.
    std::string name(".");
    name.append(targetPath.filename().string()).append(".tmp-").append(std::to_string(::getpid()));
    name.append("-").append(std::to_string(counter++));
    m_temporary = (folder / name).string();
    m_file.emplace(H5File::create(m_temporary));
}

AtomicOutput::~AtomicOutput()
{
    if (m_committed)
        return;
    m_file.reset();
    std::error_code ec;
    std::filesystem::remove(m_temporary, ec);
}

void AtomicOutput::commit()
{
    m_file->close();
    m_file.reset();
    std::error_code ec;
    std::filesystem::rename(m_temporary, m_target, ec);
    if (ec)
        throw IoError(m_target + ": cannot write: rename from temporary file failed: " + ec.message());
    m_committed = true;
}

} // namespace sparsity::core
