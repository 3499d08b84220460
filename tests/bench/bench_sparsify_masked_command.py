#!/usr/bin/python3
"""The whole `sparsity sparsify` command over a masked_tensor input (issue 13): what a user runs,
against the script a user would write instead and against the floor of moving the same bytes,
in one run.

    bench_sparsify_masked_command.py SPARSITY WORKDIR [--runs N] [--size N] [--threads N]
                                     [--previous OLD_SPARSITY] [--coo]

Workload: threshold 0.5 of a SIZE x SIZE float32 masked_tensor (default 8192: 256 MiB of data
and 64 MiB of mask, 60% specified), written as a masked_tensor (the values, unspecified ones 0,
and the mask of the specified elements kept), file to file.
  ours           `sparsity sparsify in.h5 -o out.h5 --method threshold --threshold 0.5 --layout
                 masked --json` (default budget: read once through the blocks), again under
                 --memory-limit 64M (streamed), and with --save-state (the whole tensor held in
                 memory: what every build before this one did with a masked input)
  h5py + torch   read data and mask with h5py, `keep = mask & (x.abs() >= t)`, write
                 `torch.where(mask, x, 0)` and `keep` with h5py; torch.set_num_threads(THREADS)
  dd             `dd bs=4M` of the input file to a copy: the bytes read and written
With --coo: a masked_tensor of coo data and a coo mask of the same entries, as torch.masked
keeps a coalesced sparse one (SIZE * 128 rows x 64, 10% stored, rows ascending, 60% of the stored
ones specified; default 1,048,576 x 64: 6.7 million entries, 232 MiB of file), thresholded into
--layout coo (the specified values kept, zeros dropped); read a block of rows at a time, data and
mask (until stop 57 it was held whole, and refused under a budget it did not fit). The script
reads both with h5py, checks that their indices are equal, keeps `specified & (v.abs() >= t) &
(v != 0)` of the values and writes them and their indices.
Columns: wall seconds (process start to exit for ours and dd; open to close for the script, its
import excluded), compute seconds (ours: compute_seconds; torch: its op), peak resident memory.
Best of N runs, page cache warm on every side. The outputs must be equal."""
import json
import os
import sys

import h5py
import numpy as np

from bench_common import PEAK_OF, best_run, command_bench_parser, dd_wall, huge_pages, print_run_table, timed

TORCH_COO_SCRIPT = r"""
import json, resource, sys, time
import h5py, torch
src, dst, t, threads = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
torch.set_num_threads(threads)
start = time.perf_counter()
with h5py.File(src, "r") as f:
    indices = torch.from_numpy(f["m/data/indices"][()])
    values = torch.from_numpy(f["m/data/values"][()])
    if not torch.equal(indices, torch.from_numpy(f["m/mask/indices"][()])):
        raise SystemExit("the mask's indices are not the data's")
    specified = torch.from_numpy(f["m/mask/values"][()])
op = time.perf_counter()
keep = specified & (values.abs() >= t) & (values != 0)
kept_indices, kept_values = indices[:, keep], values[keep]
op = time.perf_counter() - op
with h5py.File(dst, "w") as f:
    f["m/indices"] = kept_indices.numpy()
    f["m/values"] = kept_values.numpy()
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "op": op, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""

TORCH_SCRIPT = r"""
import json, resource, sys, time
import h5py, torch
src, dst, t, threads = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
torch.set_num_threads(threads)
start = time.perf_counter()
with h5py.File(src, "r") as f:
    x = torch.from_numpy(f["m/data"][()])
    mask = torch.from_numpy(f["m/mask"][()])
op = time.perf_counter()
keep = mask & (x.abs() >= t)
data = torch.where(mask, x, torch.zeros((), dtype=x.dtype))
op = time.perf_counter() - op
with h5py.File(dst, "w") as f:
    f["m/data"] = data.numpy()
    f["m/mask"] = keep.numpy()
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "op": op, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def write_masked_dense(path, n, rng):
    """/m: an n x n float32 masked_tensor of dense data and mask, 60% specified."""
    with h5py.File(path, "w") as f:
        g = f.create_group("m")
        g.attrs["encoding-type"], g.attrs["encoding-version"] = "masked_tensor", "0.1.0"
        data = g.create_dataset("data", (n, n), dtype="float32")
        mask = g.create_dataset("mask", (n, n), dtype=bool)
        for first in range(0, n, 1024):  # in slabs: the scripts' rusage starts from a fork of this process
            rows = min(1024, n - first)
            data[first:first + rows] = rng.standard_normal((rows, n), dtype=np.float32)
            mask[first:first + rows] = rng.random((rows, n), dtype=np.float32) < 0.6


def write_masked_coo(path, n, rng, width=64, seed=7):
    """/m: an (n * 128) x width float32 masked_tensor of coo data and a coo mask of its entries,
    coalesced (rows ascending, each row's columns sorted), 10% stored, 60% of them specified."""
    rows = n * 128
    with h5py.File(path, "w") as f:
        g = f.create_group("m")
        g.attrs["encoding-type"], g.attrs["encoding-version"] = "masked_tensor", "0.1.0"
        parts = {}
        for name in ("data", "mask"):
            part = g.create_group(name)
            part.attrs["encoding-type"], part.attrs["encoding-version"] = "coo_tensor", "0.1.0"
            part.attrs["shape"] = np.array([rows, width], dtype=np.int64)
            parts[name] = part
        # Each slab of rows from its own seed, drawn twice (counted, then written): nothing of
        # the file is held here (the scripts' rusage starts from a fork of this process).
        slab = 65536

        def slab_entries(k):
            slab_rng = np.random.default_rng([seed, k])
            r, c = np.nonzero(slab_rng.random((min(slab, rows - k * slab), width), dtype=np.float32) < 0.1)
            return slab_rng, r, c

        slabs = range((rows + slab - 1) // slab)
        entries = sum(len(slab_entries(k)[1]) for k in slabs)
        data_indices = parts["data"].create_dataset("indices", (2, entries), dtype="int64")
        mask_indices = parts["mask"].create_dataset("indices", (2, entries), dtype="int64")
        values = parts["data"].create_dataset("values", (entries,), dtype="float32")
        specified = parts["mask"].create_dataset("values", (entries,), dtype=bool)
        at = 0
        for k in slabs:
            slab_rng, r, c = slab_entries(k)
            part = slice(at, at + len(r))
            both = np.stack([r + k * slab, c]).astype(np.int64)
            data_indices[:, part], mask_indices[:, part] = both, both
            values[part] = slab_rng.standard_normal(len(r), dtype=np.float32)
            specified[part] = slab_rng.random(len(r), dtype=np.float32) < 0.6
            at += len(r)


def main():
    parser = command_bench_parser()
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--coo", action="store_true", help="a masked_tensor of coo data and mask, into coo")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    out = lambda name: os.path.join(args.workdir, name)
    src, n, t = out("masked_coo.h5" if args.coo else "masked.h5"), args.size, 0.5
    layout, parts = ("coo", ("m/indices", "m/values")) if args.coo else ("masked", ("m/data", "m/mask"))
    rng = np.random.default_rng(0)
    if args.coo:
        write_masked_coo(src, n, rng)
    else:
        write_masked_dense(src, n, rng)

    def sparsity(*extra, binary=None):
        def once():
            if os.path.exists(out("ours.h5")):
                os.remove(out("ours.h5"))
            wall, stdout, peak = timed([*PEAK_OF, binary or args.sparsity, "sparsify", src, "-o", out("ours.h5"),
                                        "--method", "threshold", "--threshold", str(t), "--layout", layout, "--json",
                                        *extra])
            r = json.loads(stdout)
            return {"wall": wall, "compute": r["compute_seconds"], "peak": r.get("peak_memory_bytes", peak),
                    "limit": r.get("memory_limit_bytes"), "streamed": r["datasets"][0]["streamed"]}
        return once

    def torch_script():
        if os.path.exists(out("torch.h5")):
            os.remove(out("torch.h5"))
        _, stdout, _ = timed([sys.executable, "-c", TORCH_COO_SCRIPT if args.coo else TORCH_SCRIPT, src, out("torch.h5"), str(t), str(args.threads)])
        r = json.loads(stdout)
        return {"wall": r["wall"], "compute": r["op"], "peak": r["peak"]}

    floor = {"wall": min(dd_wall(src, out("dd.bin")) for _ in range(args.runs)), "compute": None, "peak": None}
    os.remove(out("dd.bin"))
    previous = best_run(args.runs, sparsity(binary=args.previous)) if args.previous else None
    whole = best_run(args.runs, sparsity("--save-state"))
    ours_streamed = best_run(args.runs, sparsity("--memory-limit", "64M"))
    ours_default = best_run(args.runs, sparsity())
    theirs = best_run(args.runs, torch_script)
    with h5py.File(out("ours.h5")) as o, h5py.File(out("torch.h5")) as f:
        for part in parts:
            assert np.array_equal(o[part][()], f[part][()]), f"{part}: ours and torch differ"
    what = (f"a {n * 128} x 64 float32 masked_tensor of coo data and mask (10% stored, 60% of that specified) to coo"
            if args.coo else f"a {n} x {n} float32 masked_tensor (60% specified) to a masked_tensor")
    print(f"threshold {t} of {what}; threads {args.threads}; best of {args.runs}; {huge_pages()}")
    print_run_table([("sparsity sparsify (default budget" + (", streamed)" if ours_default["streamed"] else ")"), ours_default),
                     ("sparsity sparsify --memory-limit 64M (streamed)", ours_streamed),
                     ("sparsity sparsify --save-state (whole, as before)", whole),
                     *([("previous build, same command", previous)] if previous else []),
                     ("h5py + torch script (import excluded)", theirs),
                     ("dd bs=4M of the input file (read + written)", floor)])
    print(f"whole command vs h5py + torch: {theirs['wall'] / ours_default['wall']:.2f}x faster; vs dd: "
          f"{ours_default['wall'] / floor['wall']:.2f}x dd's time; vs the whole tensor: {whole['wall'] / ours_default['wall']:.2f}x "
          f"faster; compute vs torch's op: {theirs['compute'] / ours_default['compute']:.1f}x; peak "
          f"{ours_default['peak'] / 2**20:.0f} MiB (whole {whole['peak'] / 2**20:.0f} MiB)")


if __name__ == "__main__":
    main()
