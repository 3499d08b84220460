#include "core/io/atomic_output.h"

#include "core/io/output_path.h"
#include "core/parallel/rank_group.h"
#include "core/util/errors.h"

#include <filesystem>
#include <unistd.h>

namespace sparsity::core {

AtomicOutput::AtomicOutput(std::string target) : m_target(std::move(target))
{
    namespace fs = std::filesystem;
    const auto &group = ranks();
    agreeOn(group, [&] {
        const fs::path targetPath(m_target);
        const fs::path folder = targetPath.has_parent_path() ? targetPath.parent_path() : fs::path(".");
        if (const auto problem = outputPathProblem(m_target))
            throw InputError("output path " + m_target + " " + *problem);
        std::error_code ec;
        if (!fs::is_directory(folder, ec))
            throw IoError(m_target + ": cannot write: folder " + folder.string() + " does not exist");
        if (::access(folder.c_str(), W_OK) != 0)
            throw IoError(m_target + ": cannot write: folder " + folder.string() + " is not writable");
    });
    m_temporary.emplace(m_target);
    agreeOn(group, [&] { m_file.emplace(H5File::create(m_temporary->path(), m_target)); });
}

AtomicOutput::~AtomicOutput()
{
    if (m_committed)
        return;
    if (m_file)
        m_file->discard();
    m_file.reset();
    m_temporary.reset();
}

void AtomicOutput::commit()
{
    const auto &group = ranks();
    // Closing a shared file flushes it in HDF5's own collective calls: a rank that fails inside
    // them (a full disk refusing the root's metadata) can leave the others waiting there, where
    // no agreement reaches them. So its failure is not agreed: it ends the job, unless every rank
    // failed alike (RankSession::failWith).
    m_file->close();
    const auto lost = m_file->lostWrite();
    m_file.reset();
    // The ranks that shared the file closed it together. Unless a rank's close lost a write
    // (agreed first, so the root never renames what another rank found broken), the root
    // renames it.
    agreeOn(group, [&] {
        if (!lost.empty())
            throw IoError(lost);
    });
    agreeOn(group, [&] {
        if (!group.isRoot())
            return;
        std::error_code ec;
        std::filesystem::rename(m_temporary->path(), m_target, ec);
        if (ec)
            throw IoError(m_target + ": cannot write: rename from temporary file failed: " + ec.message());
    });
    m_temporary->release();
    m_committed = true;
}

} // namespace sparsity::core
