#!/usr/bin/python3
"""The whole `sparsity convert` command (issue 13): a pruned table exported as csr and as csc,
against the script a user would write instead and against the floor of moving the same bytes,
in one run.

    bench_convert_command.py SPARSITY WORKDIR [--runs N] [--size N] [--threads N] [--masked]
                             [--previous OLD_SPARSITY]

Workload: one SIZE x SIZE float32 dataset (default 8192: 256 MiB) with about 90% zeros
(|x| < 1.645 set to 0), converted file to file to csr and to csc. With --masked: a SIZE x SIZE
float32 masked_tensor of dense data and a dense bool mask 60% specified (256 + 64 MiB), its
specified elements converted into a masked_tensor of csr or csc data and mask.
  ours           `sparsity convert big.h5 out.h5 --layout L` (default budget), and again under
                 --memory-limit 64M (--masked: 24M too, where csc takes about 41 column panels);
                 --previous: another build's same default and 24M commands, for a before/after
  h5py + torch   read with h5py, `x.to_sparse_csr()` / `x.to_sparse_csc()`, written with h5py
                 as anndata's csr_matrix / csc_matrix group; --masked: the specified elements'
                 positions from `mask.nonzero()` (of mask.t() for csc), their values, indptr from
                 a bincount, written as a masked_tensor of two such groups (the mask's values all
                 true); torch.set_num_threads(THREADS)
  dd             `dd if=big.h5 of=copy bs=4M`: the input's bytes read and written through user space
Columns: wall seconds of the whole run (process start to exit for ours and dd; open to close
for the script, its `import torch` excluded), the script's op seconds (`convert` has no
--json: the wall time is the headline), peak resident memory (ours: /usr/bin/time's %M, whose
fork is small, where this script's own rusage of a child would count the fork of this Python
process; the script: its own, torch's ~250 MiB included). Kernel only, the second column: the torch op; ours is
core::denseToCompressed in bench_foundation. Best of N runs; the file is in the page cache
after the first. The outputs must hold the same data, indices and indptr."""
import argparse
import json
import os
import sys

import h5py
import numpy as np

from bench_common import PEAK_OF, best_run, dd_wall, huge_pages, timed

# A plain table: torch's to_sparse_csr() / to_sparse_csc(). A masked_tensor ("masked"): its
# specified elements' positions from mask.nonzero() (of mask.t() for csc), their values, indptr
# from a bincount; data and mask (all true) written as two groups of that pattern.
TORCH_SCRIPT = r"""
import json, resource, sys, time
import h5py, torch
src, dst, layout, threads, masked = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "masked"
torch.set_num_threads(threads)
start = time.perf_counter()
with h5py.File(src, "r") as f:
    x = torch.from_numpy(f["x/data" if masked else "x"][()])
    mask = torch.from_numpy(f["x/mask"][()]) if masked else None
op = time.perf_counter()
if not masked:
    s = x.to_sparse_csr() if layout == "csr" else x.to_sparse_csc()
    values = s.values()
    pointers, indices = (s.crow_indices(), s.col_indices()) if layout == "csr" else (s.ccol_indices(), s.row_indices())
elif layout == "csr":
    major, indices = mask.nonzero().unbind(1)
    values = x[major, indices]
else:
    major, indices = mask.t().nonzero().unbind(1)
    values = x[indices, major]
if masked:
    counts = torch.bincount(major, minlength=x.shape[0 if layout == "csr" else 1])
    pointers = torch.cat([torch.zeros(1, dtype=torch.int64), counts.cumsum(0)])
op = time.perf_counter() - op


def compressed(g, stored):
    g.attrs["encoding-type"], g.attrs["encoding-version"] = layout + "_matrix", "0.1.0"
    g.attrs["shape"] = list(x.shape)
    g["data"] = stored.numpy()
    g["indices"] = indices.numpy()
    g["indptr"] = pointers.numpy()


with h5py.File(dst, "w") as f:
    g = f.create_group("x")
    if masked:
        g.attrs["encoding-type"], g.attrs["encoding-version"] = "masked_tensor", "0.1.0"
        compressed(g.create_group("data"), values)
        compressed(g.create_group("mask"), torch.ones(values.shape, dtype=torch.bool))
    else:
        compressed(g, values)
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "op": op, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sparsity")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--masked", action="store_true", help="a masked_tensor of dense data and mask, 60%% specified")
    parser.add_argument("--previous", help="another build's sparsity, timed on the same commands (default budget and 24M)")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    src = os.path.join(args.workdir, "masked.h5" if args.masked else "pruned.h5")
    n = args.size
    with h5py.File(src, "w") as f:
        if args.masked:
            g = f.create_group("x")
            g.attrs["encoding-type"], g.attrs["encoding-version"] = "masked_tensor", "0.1.0"
            d, m = g.create_dataset("data", (n, n), dtype="float32"), g.create_dataset("mask", (n, n), dtype=bool)
        else:
            d, m = f.create_dataset("x", (n, n), dtype="float32"), None
        rng = np.random.default_rng(0)
        for first in range(0, n, 1024):  # in slabs: children's rusage starts from a fork of this process
            x = rng.standard_normal((min(1024, n - first), n), dtype=np.float32)
            if m is None:
                x[np.abs(x) < 1.645] = 0
            else:
                m[first:first + x.shape[0]] = rng.random(x.shape, dtype=np.float32) < 0.6
            d[first:first + x.shape[0]] = x
    out = lambda name: os.path.join(args.workdir, name)
    parts = ("x/data", "x/mask") if args.masked else ("x",)

    def sparsity(layout, *extra, binary=None):
        def once():
            if os.path.exists(out("ours.h5")):
                os.remove(out("ours.h5"))
            wall, _, peak = timed([*PEAK_OF, binary or args.sparsity, "convert", src, out("ours.h5"), "--layout", layout,
                                   *extra])
            return {"wall": wall, "op": None, "peak": peak}
        return once

    def torch_script(layout):
        def once():
            if os.path.exists(out("torch.h5")):
                os.remove(out("torch.h5"))
            _, stdout, _ = timed([sys.executable, "-c", TORCH_SCRIPT, src, out("torch.h5"), layout, str(args.threads),
                                  "masked" if args.masked else "plain"])
            r = json.loads(stdout)
            return {"wall": r["wall"], "op": r["op"], "peak": r["peak"]}
        return once

    def dd():
        return {"wall": dd_wall(src, out("dd.bin")), "op": None, "peak": None}

    floor = best_run(args.runs, dd)
    mib = lambda b: "-" if b is None else f"{b / 2**20:8.0f}"
    sec = lambda s: "-" if s is None else f"{s:8.3f}"
    what = "masked_tensor, 60% specified" if args.masked else "90% zeros"
    print(f"convert, {n} x {n} float32 ({n * n * 4 / 2**20:.0f} MiB, {what}) file to file; torch threads "
          f"{args.threads}; best of {args.runs}; {huge_pages()}")
    print(f"{'run':44} {'wall s':>8} {'op s':>8} {'peak MiB':>8}")
    small = ("64M", "24M") if args.masked else ("64M",)
    for layout in ("csr", "csc"):
        ours_default = best_run(args.runs, sparsity(layout))
        runs = [(f"sparsity convert --layout {layout}", ours_default)]
        for limit in small:
            runs.append((f"  the same under --memory-limit {limit}", best_run(args.runs, sparsity(layout, "--memory-limit", limit))))
        with h5py.File(out("ours.h5")) as f:
            ours_arrays = [f[part][name][()] for part in parts for name in ("data", "indices", "indptr")]
        if args.previous:
            for limit in ("auto", "24M"):
                runs.append((f"  previous build under {limit}",
                             best_run(args.runs, sparsity(layout, "--memory-limit", limit, binary=args.previous))))
        theirs = best_run(args.runs, torch_script(layout))
        with h5py.File(out("torch.h5")) as f:
            theirs_arrays = [f[part][name][()] for part in parts for name in ("data", "indices", "indptr")]
        for k, (mine, torch_one) in enumerate(zip(ours_arrays, theirs_arrays)):
            assert np.array_equal(torch_one, mine), f"{layout} array {k}: ours and torch differ"
        runs.append((f"h5py + torch {'nonzero' if args.masked else 'to_sparse_' + layout} (import excl.)", theirs))
        for name, r in runs:
            print(f"{name:44} {sec(r['wall']):>8} {sec(r['op']):>8} {mib(r['peak']):>8}")
        print(f"  {layout}: whole command {theirs['wall'] / ours_default['wall']:.2f}x faster than the script; "
              f"{ours_default['wall'] / floor['wall']:.2f}x dd's time")
    print(f"{'dd bs=4M, the input read + written':44} {sec(floor['wall']):>8} {'-':>8} {'-':>8}")


if __name__ == "__main__":
    main()
