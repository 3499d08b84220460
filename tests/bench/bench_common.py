"""Helpers shared by the benchmark scripts: best-of-N timing, running our C++ timing drivers
(each prints one JSON object), and writing the inputs both sides read."""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import h5py
import numpy as np


def write_coo(group, name, rows, values, shape):
    """A row-wise coo_tensor (one sparse dim: `rows`, dense rows `values`), as a gradient."""
    g = group.create_group(name)
    g.attrs["encoding-type"] = "coo_tensor"
    g.attrs["encoding-version"] = "0.1.0"
    g.attrs["shape"] = np.array(shape, dtype=np.int64)
    g["indices"] = rows[None, :].astype(np.int64)
    g["values"] = values


def write_csr_input(path, rows, columns, density, seed=0, layout="csr", gzip=0):
    """/x: a rows x columns float32 csr_matrix with round(columns * density) values a row, at
    random sorted columns (int64 indices); or (layout "coo") the same entries as a coo_tensor,
    in row-major order, as torch's coalesce() and scipy's sum_duplicates() leave them; or (layout
    "coo_shuffled") those entries in a random order, rows going back (a coo_matrix as built,
    before sum_duplicates()); or (layout "csc") a csc_matrix of round(rows * density) values a column, at random sorted rows.
    With `gzip` (a level), every array is compressed as h5py compresses it: gzip at that level
    after shuffle, in h5py's own chunks. Written
    by a child process: a later child's rusage (a script's peak memory) starts from a fork of
    this process, which must stay small; the slabs keep the child small too. Returns the values
    a row."""
    per_row = max(1, int(round((rows if layout == "csc" else columns) * density)))
    subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import bench_common; "
                    "bench_common.write_csr_slabs(sys.argv[2], *map(int, sys.argv[3:7]), sys.argv[7], int(sys.argv[8]))",
                    os.path.dirname(os.path.abspath(__file__)), path, str(rows), str(columns), str(per_row), str(seed),
                    layout, str(gzip)], check=True)
    return per_row


def csr_command_bench():
    """A whole-command benchmark of a csr input: command_bench_parser's arguments and --rows,
    --columns, --density parsed, and its input written (write_csr_input) as WORKDIR/sparse.h5.
    Returns (arguments, the input's path, its values a row)."""
    parser = command_bench_parser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--columns", type=int, default=4096)
    parser.add_argument("--density", type=float, default=0.01)
    parser.add_argument("--input", choices=("csr", "coo", "coo_shuffled", "csc"), default="csr",
                        help="the input's layout (coo_shuffled: a coo whose entries' rows go back)")
    parser.add_argument("--limits", default="64M", help="the budgets the command runs under besides the default "
                        "(comma-separated --memory-limit values)")
    parser.add_argument("--gzip", type=int, default=0, metavar="LEVEL",
                        help="the input's arrays compressed by h5py: gzip LEVEL after shuffle (default: none)")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    src = os.path.join(args.workdir, "sparse.h5")
    return args, src, write_csr_input(src, args.rows, args.columns, args.density, layout=args.input, gzip=args.gzip)


def write_csr_slabs(path, rows, columns, per_row, seed, layout="csr", gzip=0):
    """write_csr_input's child: the matrix written 10,000 rows at a time (a csc: 64 columns at a
    time, `per_row` values each)."""
    rng = np.random.default_rng(seed)
    packed = dict(compression="gzip", compression_opts=gzip, shuffle=True) if gzip else {}
    if layout == "csc":
        with h5py.File(path, "w") as f:
            g = f.create_group("x")
            g.attrs["encoding-type"], g.attrs["encoding-version"] = "csc_matrix", "0.1.0"
            g.attrs["shape"] = np.array([rows, columns], dtype=np.int64)
            g.create_dataset("indptr", data=(np.arange(columns + 1) * per_row).astype(np.int64), **packed)
            indices = g.create_dataset("indices", (columns * per_row,), dtype="int64", **packed)
            data = g.create_dataset("data", (columns * per_row,), dtype="float32", **packed)
            for first in range(0, columns, 64):
                n = min(64, columns - first)
                picked = np.sort(rng.random((n, rows)).argpartition(per_row, axis=1)[:, :per_row], axis=1)
                entries = slice(first * per_row, (first + n) * per_row)
                indices[entries] = picked.ravel()
                data[entries] = rng.standard_normal(n * per_row, dtype=np.float32)
        return
    nnz = rows * per_row
    with h5py.File(path, "w") as f:
        g = f.create_group("x")
        g.attrs["encoding-type"] = "csr_matrix" if layout == "csr" else "coo_tensor"
        # Shuffled, the entries are drawn a slab at a time as below, then written in a random
        # order: the child holds them all once (4.1M entries: 82 MB).
        order = rng.permutation(nnz) if layout == "coo_shuffled" else None
        if order is not None:
            rows_of, columns_of, values_of = (np.empty(nnz, np.int64), np.empty(nnz, np.int64),
                                              np.empty(nnz, np.float32))
        g.attrs["encoding-version"] = "0.1.0"
        g.attrs["shape"] = np.array([rows, columns], dtype=np.int64)
        if layout == "csr":
            g.create_dataset("indptr", data=(np.arange(rows + 1) * per_row).astype(np.int64), **packed)
            indices = g.create_dataset("indices", (nnz,), dtype="int64", **packed)
            data = g.create_dataset("data", (nnz,), dtype="float32", **packed)
        else:
            indices = g.create_dataset("indices", (2, nnz), dtype="int64", **packed)
            data = g.create_dataset("values", (nnz,), dtype="float32", **packed)
        for first in range(0, rows, 10_000):
            n = min(10_000, rows - first)
            picked = np.sort(rng.random((n, columns)).argpartition(per_row, axis=1)[:, :per_row], axis=1)
            entries = slice(first * per_row, (first + n) * per_row)
            values = rng.standard_normal(n * per_row, dtype=np.float32)
            if order is not None:
                rows_of[entries] = np.repeat(np.arange(first, first + n), per_row)
                columns_of[entries], values_of[entries] = picked.ravel(), values
                continue
            if layout == "csr":
                indices[entries] = picked.ravel()
            else:
                indices[0, entries] = np.repeat(np.arange(first, first + n), per_row)
                indices[1, entries] = picked.ravel()
            data[entries] = values
        if order is not None:
            indices[0, :], indices[1, :], data[:] = rows_of[order], columns_of[order], values_of[order]


# Put before a command, /usr/bin/time (Debian's `time`) reports its peak from a small fork: a
# child's rusage, as this process reads it, would count the fork of this Python process too.
PEAK_OF = ["/usr/bin/time", "-f", "%M"] if shutil.which("/usr/bin/time") else []


def timed(command, env=None):
    """Wall seconds, stdout and peak resident bytes of a child process (from /usr/bin/time when
    `command` starts with PEAK_OF, else from the child's rusage)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    out, err = child.stdout.read(), child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{command}: exit {os.waitstatus_to_exitcode(status)}: {err}")
    if PEAK_OF and command[:len(PEAK_OF)] == PEAK_OF:
        return wall, out, int(err.strip().splitlines()[-1]) * 1024
    return wall, out, usage.ru_maxrss * 1024


def dd_wall(src, dst):
    """Wall seconds of `dd bs=4M` copying src to dst: the floor of moving a file's bytes through
    user space, read and written, that the command benchmarks compare with. A new file each time,
    as the commands write theirs: over the last run's 256 MiB file dd took 0.13-0.30 s, where a
    new file took 0.08-0.09 s (it truncates the old one first)."""
    if os.path.exists(dst):
        os.remove(dst)
    wall, _, _ = timed(["dd", f"if={src}", f"of={dst}", "bs=4M", "status=none"])
    return wall


def command_bench_parser():
    """The arguments every whole-command benchmark takes: SPARSITY WORKDIR [--runs N]
    [--threads N] [--previous OLD_SPARSITY]; a benchmark adds its size option."""
    parser = argparse.ArgumentParser()
    parser.add_argument("sparsity")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--previous", help="another build's sparsity, timed the same way")
    return parser


def print_run_table(table):
    """(name, run) rows: wall seconds, compute seconds and peak MiB, "-" where a run has none."""
    mib = lambda b: "-" if b is None else f"{b / 2**20:8.0f}"
    sec = lambda s: "-" if s is None else f"{s:8.3f}"
    print(f"{'run':48} {'wall s':>8} {'compute s':>9} {'peak MiB':>8}")
    for name, r in table:
        print(f"{name:48} {sec(r['wall']):>8} {sec(r['compute']):>9} {mib(r['peak']):>8}")


def best_run(runs, f):
    """The run of `runs` calls of f (each a dict with "wall") with the least wall time. Each call
    starts after os.sync(): the last run's output (256 MiB in the command benchmarks) is then on
    disk, not being written back during this run, which made a run 2-4x slower than one on a
    quiet machine, whichever side came first."""
    def synced():
        os.sync()
        return f()

    return min((synced() for _ in range(runs)), key=lambda r: r["wall"])


def interleaved_best_runs(runs, variants):
    """best_run of each of `variants` ({name: f}), taken in rounds: each round calls every
    variant once, in order, each after os.sync(). The machine's speed drifts within a benchmark
    (dd of the same 256 MiB took 0.055 to 0.26 s in one stop), so variants timed one after
    another, runs apart, were compared across that drift; in rounds each variant meets the same
    drift. Each best run gets "median_wall", the median of its variant's walls."""
    walls = {name: [] for name in variants}
    best = {}
    for _ in range(runs):
        for name, f in variants.items():
            os.sync()
            r = f()
            walls[name].append(r["wall"])
            if name not in best or r["wall"] < best[name]["wall"]:
                best[name] = r
    for name, r in best.items():
        r["median_wall"] = statistics.median(walls[name])
        r["walls"] = walls[name]
    return best


def print_rounds(best):
    """One line per variant of interleaved_best_runs: its walls, round by round."""
    for name, r in best.items():
        print(f"  rounds, {name}: " + " ".join(f"{w:.3f}" for w in r["walls"]) + f" (median {r['median_wall']:.3f})")


def best_of(runs, f):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


def ours(binary, *args):
    out = subprocess.run([binary, *map(str, args)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def huge_pages():
    """The kernel's transparent huge page mode, for the header of every benchmark against torch:
    torch's allocator does not ask for huge pages, so under `madvise` each fresh tensor faults
    in 4 KiB pages, and on this project's VM that made torch's threshold op 3-20x slower
    than under `always` (docs/PERFORMANCE.md, stop 40). Our buffers and numpy's ask for them."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            modes = f.read().split()
        chosen = next((m.strip("[]") for m in modes if m.startswith("[")), "unknown")
    except OSError:
        chosen = "unknown"
    return f"transparent huge pages: {chosen}"


def bench_setup(runs=5):
    """The arguments every benchmark takes (BENCH_BINARY WORKDIR [--runs N]); makes WORKDIR
    and gives torch every core, as our drivers get them."""
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--cli", help="the sparsity command, for benchmarks whose headline is it")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    import torch   # only the benchmarks that need it pay for the import
    torch.set_num_threads(os.cpu_count())
    print(huge_pages())
    return args
