#pragma once
// A dataset whose values lie in its file exactly as they lie in memory: contiguous storage,
// allocated, with no filter and no external file, of the machine's own float or double, in a
// file HDF5 opened with its default (sec2) driver. Its rows are read with pread() from HDF5's
// own file descriptor, without a call into HDF5, so several threads read parts of a block at
// once (HDF5 serialises every call) while HDF5 may be busy on another thread: the streaming
// pipelines' reads of plain dense inputs (docs/PERFORMANCE.md, stop 61). What a read returns
// is what H5Dread returns, byte for byte.
#include "core/tensor/dtype.h"

#include <cstdint>
#include <hdf5.h>
#include <optional>
#include <string>

namespace sparsity::core {

struct RawValues {
    int fd = -1;             // HDF5's descriptor of the file: valid while the file is open
    std::int64_t offset = 0; // of the first value, from the start of the file (user block included)
    std::int64_t bytes = 0;  // the values' storage
    DType dtype = DType::Float32;
};

// The dataset's raw values, if it is such a dataset (nothing otherwise: read it with H5Dread).
std::optional<RawValues> rawValuesOf(hid_t dataset);

// HDF5's descriptor of the file that holds `object`, when HDF5 opened it with its default (sec2)
// driver: a file of this process alone, not one the ranks of `sparsity-mpi` share through
// MPI-IO. Nothing otherwise.
std::optional<int> plainFileDescriptor(hid_t object);

// Bytes [first, first + count) of the values into `into`, from any thread, in pieces of 1 MiB
// on the OpenMP threads (one thread's copies out of the page cache were the bottleneck of a
// pass that only reads). A read that ends early (the file cut short underneath) or fails is an
// IoError naming `where`.
void readRawValues(const RawValues &raw, std::int64_t first, std::int64_t count, void *into, const std::string &where);

} // namespace sparsity::core
