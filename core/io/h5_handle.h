#pragma once
// RAII for HDF5 identifiers, and H5File, an open file that remembers its path so every error
// can name it. HDF5's automatic error-stack printing is switched off the first time a file is
// opened: users see only our one-line messages.
#include <cstddef>
#include <hdf5.h>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

namespace sparsity::core {

class H5Handle {
public:
    using Closer = herr_t (*)(hid_t);

    H5Handle() = default;
    H5Handle(hid_t id, Closer closer) : m_id(id), m_closer(closer) {}
    H5Handle(const H5Handle &) = delete;
    H5Handle &operator=(const H5Handle &) = delete;
    H5Handle(H5Handle &&other) noexcept : m_id(std::exchange(other.m_id, H5I_INVALID_HID)), m_closer(other.m_closer) {}
    H5Handle &operator=(H5Handle &&other) noexcept
    {
        if (this != &other) {
            reset();
            m_id = std::exchange(other.m_id, H5I_INVALID_HID);
            m_closer = other.m_closer;
        }
        return *this;
    }
    ~H5Handle() { reset(); }

    hid_t id() const { return m_id; }
    bool isValid() const { return m_id >= 0; }
    void reset();
    // Forgets the identifier without closing it (a shared file that cannot be closed alone).
    void abandon() { m_id = H5I_INVALID_HID; }

private:
    hid_t m_id = H5I_INVALID_HID;
    Closer m_closer = nullptr;
};

// Switches HDF5's error-stack printing off for the calling thread (every thread that calls HDF5).
void silenceHdf5Errors();

// Whether HDF5 failed to close a file (a full disk, after a failed flush): HDF5 1.10 then keeps
// it half closed in its table, and the library's exit handler (at exit, or at MPI_Finalize)
// crashes on it. A program ends without that cleanup then (app/cli/main.cpp).
bool hdf5HoldsAHalfClosedFile();

// The closer of a dataset created for writing. Closing a chunked dataset writes the chunks its
// cache still holds; on a full disk that write fails, and a failure in a destructor would be
// lost: the command would report success over zeros. The failure is kept for the file's close
// to report (H5File::close, lostWrite).
herr_t closeWrittenDataset(hid_t dataset);

struct CooRowScan;

class H5File {
public:
    // Throws IoError (exit 3): "<path>: no such file", "<path>: not an HDF5 file or truncated".
    static H5File openRead(const std::string &path);
    // Opens an in-memory copy of a file image read-only (HDF5's core driver, nothing touches
    // the disk); `name` stands for the file in messages. For the fuzz targets (tests/fuzz),
    // which feed every decoder bytes without a file. Throws IoError as openRead does.
    static H5File openImage(std::span<const std::byte> image, const std::string &name);
    // Creates or truncates `path`. Throws IoError when it cannot. `label` is the name messages
    // use (an output's target rather than its temporary file); `path` when empty.
    // In sparsity-mpi with more than one rank every rank must call it, with the same path: the
    // file is then shared (core/io/h5_shared_access.h).
    static H5File create(const std::string &path, const std::string &label = {});

    hid_t id() const { return m_handle.id(); }
    const std::string &path() const { return m_path; }
    // "file:/dataset", the location prefix of every message about an element.
    std::string where(const std::string &element) const { return m_path + ":" + element; }
    // Flushes and closes; throws IoError when the flush fails (it writes what open datasets'
    // caches hold). A dataset closed before may have failed to write its last chunks as it
    // closed, or the close itself may fail: lostWrite() then says so ("file:/dataset: cannot
    // write values (disk full?)"), for the caller to report (on a shared file after the ranks'
    // collective close, so every rank can agree on it); empty when all was written.
    void close();
    const std::string &lostWrite() const { return m_lostWrite; }
    // Closes a file whose contents are thrown away (a failed output's temporary file): it is
    // emptied and, when it is a plain file, its descriptor pointed at memory, then every object
    // still open in it is closed, so that what HDF5 writes to close it cannot fail. On a full
    // disk a failing close leaves the file half closed in HDF5's table, and the library's exit
    // handler then crashes on it (HDF5 1.10; hdf5HoldsAHalfClosedFile). A shared file is
    // emptied and closed by every rank together; a rank that fails alone leaves it open for
    // the job's abort (rank_session.h) rather than wait for ranks that will not come.
    void discard();

    // Whether the ranks of the command write this file together: then every rank makes every
    // write call of every dataset, in the same order (selecting nothing when it has nothing),
    // and a whole-dataset write is the root's.
    bool isShared() const { return m_transfer.isValid(); }
    // The transfer property list of writes: collective on a shared file, else the default.
    hid_t transferList() const { return isShared() ? m_transfer.id() : H5P_DEFAULT; }

    // What a scan of every entry's row of coo element `element` found (core/io/coo_row_reader.h:
    // whether they never decrease, and where its blocks of rows begin), kept while a file opened
    // for reading stays open. A command asks it of an input several times (which read to take,
    // then each reader as it opens), and each asking read every entry's row again: four times a
    // sparsify. Whoever relies on a scan checks it again as it reads, since the file can change
    // under it. None kept of a file opened for writing. Safe from any thread.
    std::shared_ptr<const CooRowScan> cooRowScan(const std::string &element) const;
    void keepCooRowScan(const std::string &element, std::shared_ptr<const CooRowScan> scan) const;

private:
    struct CooRowScans;
    H5File(H5Handle handle, std::string path, H5Handle transfer = {});

    H5Handle m_handle;
    std::string m_path;
    H5Handle m_transfer; // valid only on a shared file
    std::string m_lostWrite;
    std::shared_ptr<CooRowScans> m_cooRowScans; // of a file opened for reading
};

// Opening children; each throws InputError "<file>:<path>: dataset not found" when absent.
H5Handle openObject(const H5File &file, const std::string &path);
H5Handle openDataset(const H5File &file, const std::string &path);
bool linkExists(hid_t location, const std::string &path);
H5Handle datasetType(hid_t dataset);
H5Handle datasetSpace(hid_t dataset);

} // namespace sparsity::core
