// A disk that fills while a command writes, for the fault tests (fault_cases.py
// disk_fills_mid_write, mpi_cases.py disk_fills_cases). Preloaded (LD_PRELOAD), it gives the
// files whose path contains $SW_FILL_PATH a disk of $SW_FILL_CAPACITY bytes: a write fails with
// ENOSPC when the blocks the file already takes (st_blocks, which every process writing it
// sees, and which shrink when it is truncated) and the write's bytes would not fit. So the
// output's first blocks land and a later one does not, which a small tmpfs cannot give
// deterministically: the up-front space checks refuse what cannot fit before anything is
// written.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static int watched(int fd)
{
    const char *path = getenv("SW_FILL_PATH");
    if (!path)
        return 0;
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, target, sizeof target - 1);
    if (n < 0)
        return 0;
    target[n] = '\0';
    return strstr(target, path) != NULL;
}

// Whether writing `bytes` to `fd` finds the disk full.
static void find_real_functions(void);

static int full(int fd, size_t bytes)
{
    find_real_functions();
    struct stat status;
    if (!watched(fd) || fstat(fd, &status) != 0)
        return 0;
    const char *capacity = getenv("SW_FILL_CAPACITY");
    if ((long long)status.st_blocks * 512 + (long long)bytes > (capacity ? atoll(capacity) : 0)) {
        errno = ENOSPC;
        return 1;
    }
    return 0;
}

static size_t total(const struct iovec *parts, int count)
{
    size_t bytes = 0;
    for (int i = 0; i < count; ++i)
        bytes += parts[i].iov_len;
    return bytes;
}

// The C library's own functions, looked up once (dlsym is not safe in a signal handler).
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off64_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);

// At load, and again should a write come before that (another library's constructor).
__attribute__((constructor)) static void find_real_functions(void)
{
    if (real_pwritev)
        return;
    real_write = (__typeof__(real_write))dlsym(RTLD_NEXT, "write");
    real_pwrite = (__typeof__(real_pwrite))dlsym(RTLD_NEXT, "pwrite");
    real_pwrite64 = (__typeof__(real_pwrite64))dlsym(RTLD_NEXT, "pwrite64");
    real_writev = (__typeof__(real_writev))dlsym(RTLD_NEXT, "writev");
    real_pwritev = (__typeof__(real_pwritev))dlsym(RTLD_NEXT, "pwritev");
}

ssize_t write(int fd, const void *data, size_t bytes) { return full(fd, bytes) ? -1 : real_write(fd, data, bytes); }

ssize_t pwrite(int fd, const void *data, size_t bytes, off_t offset)
{
    return full(fd, bytes) ? -1 : real_pwrite(fd, data, bytes, offset);
}

ssize_t pwrite64(int fd, const void *data, size_t bytes, off64_t offset)
{
    return full(fd, bytes) ? -1 : real_pwrite64(fd, data, bytes, offset);
}

ssize_t writev(int fd, const struct iovec *parts, int count)
{
    return full(fd, total(parts, count)) ? -1 : real_writev(fd, parts, count);
}

ssize_t pwritev(int fd, const struct iovec *parts, int count, off_t offset)
{
    return full(fd, total(parts, count)) ? -1 : real_pwritev(fd, parts, count, offset);
}
