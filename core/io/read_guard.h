#pragma once
// A last line of defence for reads that Debian's HDF5 1.10.8 cannot survive on some corrupt
// files (docs/KNOWN_LIMITS.md): a flipped bit in a global heap collection makes H5Aread of a
// variable-length string segfault in H5HG_read, or loop forever. No public HDF5 call checks
// the heap before the read, so the read itself is guarded: while a ReadGuard lives, a SIGSEGV
// or SIGBUS, or a read running past the time limit, ends the process with exit 3 and a
// one-line error naming the file, object and attribute, after removing temporary output files.
//
// Off until enableReadGuards() is called: the CLI calls it; the GUI keeps a crash a crash.
#include <hdf5.h>

namespace sparsity::core {

// `seconds`: how long one guarded read may take (an attribute read takes microseconds).
void enableReadGuards(unsigned seconds);

class ReadGuard {
public:
    // Guards reading attribute `attribute` of `object` (its file and path go in the message).
    ReadGuard(hid_t object, const char *attribute);
    ReadGuard(const ReadGuard &) = delete;
    ReadGuard &operator=(const ReadGuard &) = delete;
    ~ReadGuard();

private:
    bool m_active = false;
};

} // namespace sparsity::core
