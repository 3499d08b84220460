#pragma once
// A check made before allocating room for a dataset's values: the sizes come from the file,
// and a file may declare any extents (a 2^31 x 2^31 dataset of which nothing is written costs
// a few hundred bytes on disk). Allocating such a size fails deep inside std::vector with a
// message that names nothing; this names the element and the size instead.
#include "core/util/errors.h"

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>

namespace sparsity::core {

// Bytes of physical memory of this machine (an allocation above it cannot be served).
std::uint64_t physicalMemoryBytes();

// Throws IoError (exit 3) "<where>: declares N elements; holding them takes X GiB, more than
// this machine's memory (Y GiB)" when `count` elements of `elementSize` bytes exceed physical
// memory. `where` is "file:/dataset"; `what` says which part is read ("declares", "a row of").
void requireAllocatable(std::int64_t count,
                        std::size_t elementSize,
                        const std::string &where,
                        const std::string &what = "declares");

// Whether `bytes` of values could be written beside `outputPath`: at most the free space of its
// file system. A streamed element is read and written in full; one declaring more (a 2^62-element
// dataset of which nothing is written) is not streamed for ages first but refused as too large.
bool fitsFreeSpaceOf(const std::string &outputPath, std::int64_t bytes);
// IoError "<where>: <what> X, more than the Y free on the output's file system (DIR); free
// space there or write the output elsewhere" when `bytes` do not fit beside `outputPath`.
// For a dataset of a file shared by ranks ("writing it needs"): a full disk fails inside
// MPI-IO's collective writes, where ranks can part ways and wait for each other for ever.
void requireFreeSpace(const std::string &outputPath, std::int64_t bytes, const std::string &where, const std::string &what);
// For an element over the memory budget that would stream but for the free space: that error
// ("streaming it writes up to"; raising the memory limit, what the budget's refusal advises,
// would only move the failure to the disk), unless the element is larger than this machine's
// memory as well, which requireAllocatable names.
void requireRoomToStream(const std::string &outputPath, std::int64_t bytes, const std::string &where);

// Runs `f`; an allocation that fails inside it (std::bad_alloc, or std::length_error for a
// size no container can hold) becomes IoError "<where>: out of memory <doing>", so the message
// names the file and dataset that needed the memory.
template <class F>
decltype(auto) withAllocationContext(const std::string &where, const char *doing, F &&f)
{
    try {
        return f();
    } catch (const std::bad_alloc &) {
        throw IoError(where + ": out of memory " + doing);
    } catch (const std::length_error &) {
        throw IoError(where + ": out of memory " + doing + " (a size larger than any allocation)");
    }
}

} // namespace sparsity::core
