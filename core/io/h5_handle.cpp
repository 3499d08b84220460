#include "core/io/h5_handle.h"

#include "core/io/h5_shared_access.h"
#include "core/parallel/rank_group.h"
#include "core/util/errors.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace sparsity::core {

void H5Handle::reset()
{
    if (m_id >= 0 && m_closer)
        m_closer(m_id);
    m_id = H5I_INVALID_HID;
}

namespace {

// The name HDF5 gives `object` (H5Fget_name: the file it is in; else H5Iget_name: its path).
template <class NameOf>
std::string nameFrom(hid_t object, NameOf nameOf)
{
    const ssize_t length = nameOf(object, nullptr, 0);
    if (length <= 0)
        return {};
    std::string name(static_cast<std::size_t>(length) + 1, '\0');
    nameOf(object, name.data(), name.size());
    name.resize(static_cast<std::size_t>(length));
    return name;
}

std::atomic<bool> halfClosedFile{false};

// Closes `file`, noting a failure (hdf5HoldsAHalfClosedFile).
bool closeFile(hid_t file)
{
    if (H5Fclose(file) >= 0)
        return true;
    halfClosedFile = true;
    return false;
}

// Datasets whose closing write failed, by the name of their file (the first one of each file),
// until that file's close takes it (closeWrittenDataset, H5File::close).
std::mutex lostWritesMutex;
std::map<std::string, std::string> lostWrites;

// The dataset of `fileName` whose closing write failed (its path, empty when HDF5 gave none).
std::optional<std::string> takeLostWrite(const std::string &fileName)
{
    const std::lock_guard lock(lostWritesMutex);
    const auto found = lostWrites.find(fileName);
    if (found == lostWrites.end())
        return std::nullopt;
    auto dataset = std::move(found->second);
    lostWrites.erase(found);
    return dataset;
}

// The identifiers of the objects of `types` open in `file` (H5F_OBJ_*; no references added).
std::vector<hid_t> openObjects(hid_t file, unsigned types)
{
    std::vector<hid_t> ids(static_cast<std::size_t>(std::max<ssize_t>(0, H5Fget_obj_count(file, types))));
    ids.resize(static_cast<std::size_t>(std::max<ssize_t>(0, H5Fget_obj_ids(file, types, ids.size(), ids.data()))));
    return ids;
}

// Empties the file open on `descriptor` and makes the descriptor a file in memory (memfd), so
// later reads and writes, and the driver's truncation to its end of allocation, succeed
// without touching the disk. Left as it is when memory cannot be had.
void sendWritesToMemory(int descriptor)
{
    const int emptied = ::ftruncate(descriptor, 0);
    static_cast<void>(emptied); // not a plain file: left to the close
    const int memory = ::memfd_create("sparsity-discarded-output", MFD_CLOEXEC);
    if (memory < 0)
        return;
    ::dup2(memory, descriptor);
    ::close(memory);
}

} // namespace

bool hdf5HoldsAHalfClosedFile() { return halfClosedFile; }

herr_t closeWrittenDataset(hid_t dataset)
{
    const auto file = nameFrom(dataset, H5Fget_name), path = nameFrom(dataset, H5Iget_name);
    const herr_t closed = H5Dclose(dataset);
    if (closed < 0 && !file.empty()) {
        const std::lock_guard lock(lostWritesMutex);
        lostWrites.try_emplace(file, path);
    }
    return closed;
}

namespace {

// Whether the error HDF5 just recorded says another process holds the file's lock: HDF5
// 1.10 locks a file it opens (flock; HDF5_USE_FILE_LOCKING=FALSE turns that off), and a
// file open for writing elsewhere then fails to open with EAGAIN, which must not read as
// "corrupt".
bool failedOnFileLock()
{
    bool locked = false;
    auto visit = [](unsigned, const H5E_error2_t *error, void *data) -> herr_t {
        if (error->min_num == H5E_CANTLOCKFILE || (error->desc && std::strstr(error->desc, "unable to lock file")))
            *static_cast<bool *>(data) = true;
        return 0;
    };
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, visit, &locked);
    return locked;
}

} // namespace

void silenceHdf5Errors()
{
    // Per thread: a thread-safe HDF5 (Debian's serial one) keeps one error stack per thread,
    // and the pipelines' I/O thread reads and writes too.
    thread_local bool silenced = false;
    if (!silenced)
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    silenced = true;
}

struct H5File::CooRowScans {
    std::mutex lock;
    std::map<std::string, std::shared_ptr<const CooRowScan>> scans;
};

H5File::H5File(H5Handle handle, std::string path, H5Handle transfer)
    : m_handle(std::move(handle)), m_path(std::move(path)), m_transfer(std::move(transfer))
{
}

std::shared_ptr<const CooRowScan> H5File::cooRowScan(const std::string &element) const
{
    if (!m_cooRowScans)
        return nullptr;
    const std::lock_guard held(m_cooRowScans->lock);
    const auto found = m_cooRowScans->scans.find(element);
    return found == m_cooRowScans->scans.end() ? nullptr : found->second;
}

void H5File::keepCooRowScan(const std::string &element, std::shared_ptr<const CooRowScan> scan) const
{
    if (!m_cooRowScans)
        return;
    const std::lock_guard held(m_cooRowScans->lock);
    m_cooRowScans->scans[element] = std::move(scan);
}

H5File H5File::openRead(const std::string &path)
{
    silenceHdf5Errors();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw IoError(path + ": cannot open: no such file");
    if (std::filesystem::is_directory(path, ec))
        throw IoError(path + ": cannot open: is a directory");
    const htri_t isHdf5 = H5Fis_hdf5(path.c_str());
    if (isHdf5 <= 0)
        throw IoError(path + ": cannot open: not an HDF5 file (no HDF5 signature)");
    hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (id < 0 && failedOnFileLock())
        throw IoError(path
                      + ": cannot open: is locked by another process (HDF5 file locking; another program has it open"
                        " for writing)");
    if (id < 0)
        throw IoError(path + ": cannot open: HDF5 file is truncated or corrupt");
    H5File file(H5Handle(id, H5Fclose), path);
    file.m_cooRowScans = std::make_shared<CooRowScans>();
    return file;
}

H5File H5File::openImage(std::span<const std::byte> image, const std::string &name)
{
    silenceHdf5Errors();
    if (image.empty())
        throw IoError(name + ": cannot open: not an HDF5 file (empty image)");
    H5Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    // No backing store: the core driver never writes the image back to a file called `name`.
    // H5Pset_file_image copies the bytes, so the caller's buffer may go away after the open.
    if (!fapl.isValid() || H5Pset_fapl_core(fapl.id(), 64 * 1024, 0) < 0
        || H5Pset_file_image(fapl.id(), const_cast<std::byte *>(image.data()), image.size()) < 0)
        throw IoError(name + ": cannot open: HDF5 file image rejected");
    hid_t id = H5Fopen(name.c_str(), H5F_ACC_RDONLY, fapl.id());
    if (id < 0)
        throw IoError(name + ": cannot open: HDF5 file is truncated or corrupt");
    H5File file(H5Handle(id, H5Fclose), name);
    file.m_cooRowScans = std::make_shared<CooRowScans>();
    return file;
}

H5File H5File::create(const std::string &path, const std::string &label)
{
    silenceHdf5Errors();
    H5Handle fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
    // Track link creation order so readers list datasets in the order we wrote them.
    H5Pset_link_creation_order(fcpl.id(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    H5Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    const bool shared = shareFileAccess(fapl.id());
    hid_t id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.id(), fapl.id());
    if (id < 0)
        throw IoError((label.empty() ? path : label) + ": cannot create file (directory missing or not writable?)");
    return H5File(H5Handle(id, H5Fclose), label.empty() ? path : label,
                  shared ? H5Handle(collectiveTransferList(), H5Pclose) : H5Handle());
}

void H5File::close()
{
    if (!m_handle.isValid())
        return;
    silenceHdf5Errors();
    // Datasets still open write what their caches hold here: one at a time, so that a failure
    // names its dataset (a shared file's are flushed together, H5Dflush being collective there).
    if (!isShared()) {
        for (const hid_t dataset : openObjects(m_handle.id(), H5F_OBJ_DATASET | H5F_OBJ_LOCAL)) {
            if (H5Dflush(dataset) < 0) {
                const auto path = nameFrom(dataset, H5Iget_name);
                throw IoError((path.empty() ? m_path : where(path)) + ": cannot write values (disk full?)");
            }
        }
    }
    if (H5Fflush(m_handle.id(), H5F_SCOPE_GLOBAL) < 0)
        throw IoError(m_path + ": cannot write: flush failed (disk full?)");
    const auto name = nameFrom(m_handle.id(), H5Fget_name);
    const hid_t file = m_handle.id();
    m_handle.abandon();
    const bool closed = closeFile(file);
    if (const auto dataset = takeLostWrite(name))
        m_lostWrite = (dataset->empty() ? m_path : where(*dataset)) + ": cannot write values (disk full?)";
    else if (!closed)
        m_lostWrite = m_path + ": cannot write: close failed (disk full?)";
}

void H5File::discard()
{
    if (!m_handle.isValid())
        return;
    const hid_t file = m_handle.id();
    const auto name = nameFrom(file, H5Fget_name);
    if (isShared() && !failureIsShared()) {
        m_handle.abandon();
        return;
    }
    // Nothing of the file is kept, so what HDF5 still writes to close it (the caches of the
    // datasets open in it, its metadata) need not reach the disk; on a full disk such a write
    // fails, leaves the file half closed in HDF5's table, and the library's exit handler then
    // crashes on it (HDF5 1.10). A plain file is emptied (its space freed at once) and its
    // descriptor pointed at memory; a shared one is emptied, which gives those writes room.
    void *handle = nullptr;
    if (isShared())
        emptySharedFile(file);
    else if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) >= 0 && handle)
        sendWritesToMemory(*static_cast<int *>(handle));
    for (const hid_t object :
         openObjects(file, H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR | H5F_OBJ_LOCAL))
        H5Idec_ref(object);
    m_handle.abandon();
    closeFile(file);     // fails after a failed flush, whatever it writes now
    takeLostWrite(name); // the contents are thrown away: nothing to report
}

bool linkExists(hid_t location, const std::string &path)
{
    if (path.empty() || path == "/")
        return true;
    // H5Lexists fails on a missing intermediate group, so walk the path one component at a time.
    std::string prefix;
    std::stringstream parts(path);
    std::string part;
    while (std::getline(parts, part, '/')) {
        if (part.empty())
            continue;
        prefix += "/" + part;
        if (H5Lexists(location, prefix.c_str(), H5P_DEFAULT) <= 0)
            return false;
        if (H5Oexists_by_name(location, prefix.c_str(), H5P_DEFAULT) <= 0)
            return false;
    }
    return true;
}

H5Handle openObject(const H5File &file, const std::string &path)
{
    if (!linkExists(file.id(), path))
        throw InputError(file.where(path) + ": dataset not found");
    hid_t id = H5Oopen(file.id(), path.c_str(), H5P_DEFAULT);
    if (id < 0)
        throw IoError(file.where(path) + ": cannot open object (file corrupt?)");
    return H5Handle(id, H5Oclose);
}

H5Handle openDataset(const H5File &file, const std::string &path)
{
    if (!linkExists(file.id(), path))
        throw InputError(file.where(path) + ": dataset not found");
    hid_t id = H5Dopen2(file.id(), path.c_str(), H5P_DEFAULT);
    if (id < 0)
        throw InputError(file.where(path) + ": must be a dataset, but it is not");
    return H5Handle(id, H5Dclose);
}

H5Handle datasetType(hid_t dataset) { return H5Handle(H5Dget_type(dataset), H5Tclose); }
H5Handle datasetSpace(hid_t dataset) { return H5Handle(H5Dget_space(dataset), H5Sclose); }

} // namespace sparsity::core
