"""Small file systems the fault tests mount (root only) to fill: a tmpfs, or an ext4 disk of an
image file. Each is unmounted when its `with` ends; where one cannot be made here (no root, no
loop device, a container), the `with` yields False and says why, and the case is skipped."""

import contextlib
import os
import subprocess


@contextlib.contextmanager
def mounted(how, folder):
    """`mount how... folder` (made first), unmounted after; yields whether it could be mounted
    (printing why not), so a case that needs it is skipped where it cannot be."""
    os.makedirs(folder, exist_ok=True)
    r = subprocess.run(["mount", *how, folder], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"skipped: cannot mount {how} here: {r.stderr.strip()}")
        yield False
        return
    try:
        yield True
    finally:
        subprocess.run(["umount", folder])


@contextlib.contextmanager
def small_disk(work, size, folder):
    """An ext4 file system of `size` ("256K", "1M"; no journal, no reserved blocks) on an image
    file in `work`, mounted on `folder` by a loop device: a small disk that really fills, where a
    tmpfs would be memory (and nothing spills to memory). e2fsprogs is Priority: required in
    Debian; the image's own file system needs no room beyond its size."""
    image = os.path.join(work, "disk.img")
    with open(image, "wb") as f:
        f.truncate(int(size[:-1]) * {"K": 2**10, "M": 2**20}[size[-1]])
    made = subprocess.run(["mkfs.ext4", "-q", "-F", "-m", "0", "-O", "^has_journal", image], capture_output=True, text=True)
    try:
        if made.returncode != 0:
            print(f"skipped: mkfs.ext4 failed: {made.stderr.strip()}")
            yield False
            return
        with mounted(["-o", "loop", image], folder) as ready:
            yield ready
    finally:
        os.remove(image)


def unmount_under(folder):
    """Unmounts whatever is mounted below `folder`: a run killed at its timeout leaves its file
    systems mounted in its work folder, which could not be removed before the next run."""
    with open("/proc/mounts") as f:
        points = [line.split()[1] for line in f]
    for point in points:
        if point.startswith(folder.rstrip(os.sep) + os.sep):
            subprocess.run(["umount", point], capture_output=True)
