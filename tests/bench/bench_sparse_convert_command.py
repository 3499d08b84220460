#!/usr/bin/python3
"""`sparsity convert` of a sparse (csr, coo or csc) input into coo, csr and csc (a csc input:
into csc, csr and dense) (issue 13): what a
user runs, against the scripts a user would write instead and against the floor of moving the
same bytes, in one run.

    bench_sparse_convert_command.py SPARSITY WORKDIR [--runs N] [--rows N] [--columns N]
                                    [--density F] [--input csr|coo|coo_shuffled|csc] [--threads N]
                                    [--limits 64M,16M] [--gzip LEVEL] [--previous OLD_SPARSITY]

Workload: one ROWS x COLUMNS float32 csr_matrix (default 100,000 x 4,096, 1% filled: 1.5 GiB
dense, 47 MiB stored; with --gzip, its arrays compressed by h5py, gzip LEVEL after shuffle, in
h5py's own chunks), converted file to file into coo (what a torch.sparse_coo_tensor is
built from), into csr (a copy: the floor of reading and writing it through our reader and
writer) and into csc (in column panels). With --input coo, the same entries as a coo_tensor in
row-major order (torch's coalesced order), converted into coo (a copy of its entries, a run at a
time: the floor of reading and writing it through our coo reader and writer), csr and csc; the
scripts build a torch.sparse_coo_tensor (coalesced, then written, `.to_sparse_csr()` or
`.to_sparse_csc()`) or a scipy.sparse.coo_matrix (`.copy()`, `.tocsr()` or `.tocsc()`). With
--input csc, the same matrix as a csc_matrix (its rows sorted in each column), converted into
csc (canonicalized a panel of columns at a time), csr and dense (bands of rows under 64M); the
scripts build a torch.sparse_csc_tensor (`.clone()`, `.to_sparse_csr()`, `.to_dense()`) or a
scipy.sparse.csc_matrix (`.copy()`, `.tocsr()`, then `sum_duplicates()`; `.toarray()`). With
--input coo_shuffled, those coo entries in a random order (rows going back), converted into csr,
dense and csc: in bands of rows, past two of them spilled sorted by row to a scratch file in
TMPDIR first, each band then one read of it (by default too, in bands of 8 MiB, where TMPDIR
is on a disk; since stop 53); the scripts are the coo ones.
  ours           `sparsity convert in.h5 out.h5 --layout L` (default budget: a block of rows at
                 a time, each as stored), and again under each --memory-limit of --limits
                 (default 64M)
  h5py + torch   read the csr with h5py, `torch.sparse_csr_tensor(...).to_sparse_coo()`
                 (`.clone()` for csr, `.to_sparse_csc()` for csc), written with h5py
                 (torch.set_num_threads(THREADS))
  h5py + scipy   read into scipy.sparse.csr_matrix, `.tocoo()` (`.copy()` for csr, `.tocsc()`
                 for csc), written with h5py
  dd             `dd if=in.h5 of=copy bs=4M`: the input's bytes read and written
  previous       optionally, the same commands from another build: one from before 2026-11-28
                 converts the element whole, one from before 2026-12-06 (stop 52) refuses a
                 coo whose rows go back past 16 bands (shown as "refused")
Columns: wall seconds (process start to exit for ours and dd, its peak from /usr/bin/time; open
to close for the scripts, imports excluded, their own rusage), the scripts' op seconds
(`convert` has no --json), peak resident memory. Best of N runs; the file is in the page cache
after the first. The outputs must hold the same indices and values."""
import json
import os
import sys

import h5py
import numpy as np

from bench_common import PEAK_OF, best_run, csr_command_bench, dd_wall, huge_pages, print_run_table, timed

SCRIPT = r"""
import json, resource, sys, time
import h5py, numpy as np
src, dst, layout, library, threads = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
if library == "torch":
    import torch
    torch.set_num_threads(threads)
else:
    import scipy.sparse
start = time.perf_counter()
with h5py.File(src, "r") as f:
    g = f["x"]
    shape = tuple(int(n) for n in g.attrs["shape"])
    coo = g.attrs["encoding-type"] == "coo_tensor"
    csc = g.attrs["encoding-type"] == "csc_matrix"
    if coo:
        indices, data = g["indices"][()], g["values"][()]
    else:
        indptr, indices, data = g["indptr"][()], g["indices"][()], g["data"][()]
op = time.perf_counter()
if csc:
    if library == "torch":
        m = torch.sparse_csc_tensor(torch.from_numpy(indptr), torch.from_numpy(indices), torch.from_numpy(data), shape)
        if layout == "dense":
            parts = m.to_dense().numpy()
        elif layout == "csr":
            s = m.to_sparse_csr()
            parts = {"indptr": s.crow_indices().numpy(), "indices": s.col_indices().numpy(), "data": s.values().numpy()}
        else:
            s = m.clone()
            parts = {"indptr": s.ccol_indices().numpy(), "indices": s.row_indices().numpy(), "data": s.values().numpy()}
    else:
        m = scipy.sparse.csc_matrix((data, indices, indptr), shape=shape)
        if layout == "dense":
            parts = m.toarray()
        else:
            s = m.tocsr() if layout == "csr" else m.copy()
            s.sum_duplicates()
            parts = {"indptr": s.indptr.astype(np.int64), "indices": s.indices.astype(np.int64), "data": s.data}
elif library == "torch" and coo:
    m = torch.sparse_coo_tensor(torch.from_numpy(indices), torch.from_numpy(data), shape).coalesce()
    if layout == "dense":
        parts = m.to_dense().numpy()
    elif layout == "coo":
        parts = {"indices": m.indices().numpy(), "values": m.values().numpy()}
    else:
        s = m.to_sparse_csr() if layout == "csr" else m.to_sparse_csc()
        parts = ({"indptr": s.crow_indices().numpy(), "indices": s.col_indices().numpy(), "data": s.values().numpy()}
                 if layout == "csr" else
                 {"indptr": s.ccol_indices().numpy(), "indices": s.row_indices().numpy(), "data": s.values().numpy()})
elif coo:
    m = scipy.sparse.coo_matrix((data, (indices[0], indices[1])), shape=shape)
    if layout == "dense":
        parts = m.toarray()
    elif layout == "coo":
        s = m.copy()
        parts = {"indices": np.stack([s.row.astype(np.int64), s.col.astype(np.int64)]), "values": s.data}
    else:
        s = m.tocsr() if layout == "csr" else m.tocsc()
        s.sum_duplicates()
        parts = {"indptr": s.indptr.astype(np.int64), "indices": s.indices.astype(np.int64), "data": s.data}
elif library == "torch":
    m = torch.sparse_csr_tensor(torch.from_numpy(indptr), torch.from_numpy(indices), torch.from_numpy(data), shape)
    if layout == "coo":
        s = m.to_sparse_coo().coalesce()
        parts = {"indices": s.indices().numpy(), "values": s.values().numpy()}
    elif layout == "csc":
        s = m.to_sparse_csc()
        parts = {"indptr": s.ccol_indices().numpy(), "indices": s.row_indices().numpy(), "data": s.values().numpy()}
    else:
        s = m.clone()
        parts = {"indptr": s.crow_indices().numpy(), "indices": s.col_indices().numpy(), "data": s.values().numpy()}
else:
    m = scipy.sparse.csr_matrix((data, indices, indptr), shape=shape)
    if layout == "coo":
        s = m.tocoo()
        parts = {"indices": np.stack([s.row.astype(np.int64), s.col.astype(np.int64)]), "values": s.data}
    elif layout == "csc":
        s = m.tocsc()
        parts = {"indptr": s.indptr.astype(np.int64), "indices": s.indices.astype(np.int64), "data": s.data}
    else:
        s = m.copy()
        parts = {"indptr": s.indptr.astype(np.int64), "indices": s.indices.astype(np.int64), "data": s.data}
op = time.perf_counter() - op
with h5py.File(dst, "w") as f:
    if layout == "dense":
        f["x"] = parts
        parts = {}
    g = f["x"] if layout == "dense" else f.create_group("x")
    if layout != "dense":
        g.attrs["encoding-type"] = "coo_tensor" if layout == "coo" else layout + "_matrix"
        g.attrs["encoding-version"] = "0.1.0"
        g.attrs["shape"] = list(shape)
    for name, part in parts.items():
        g[name] = part
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "op": op, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def main():
    args, src, per_row = csr_command_bench()
    out = lambda name: os.path.join(args.workdir, name)

    def sparsity(layout, *extra, binary=None):
        def once():
            if os.path.exists(out("ours.h5")):
                os.remove(out("ours.h5"))
            wall, _, peak = timed([*PEAK_OF, binary or args.sparsity, "convert", src, out("ours.h5"), "--layout", layout,
                                   *extra])
            return {"wall": wall, "compute": None, "peak": peak}
        return once

    def previous_build(layout, *extra):
        """The previous build's run, or None where it refuses (exit 2)."""
        try:
            return best_run(args.runs, sparsity(layout, *extra, binary=args.previous))
        except SystemExit as refusal:
            if ": exit 2:" not in str(refusal):
                raise
            return None

    def script(layout, library):
        def once():
            name = out(f"{library}.h5")
            if os.path.exists(name):
                os.remove(name)
            _, stdout, _ = timed([sys.executable, "-c", SCRIPT, src, name, layout, library, str(args.threads)])
            r = json.loads(stdout)
            return {"wall": r["wall"], "compute": r["op"], "peak": r["peak"]}
        return once

    print(f"convert of a {args.rows} x {args.columns} float32 {args.input}{f' (gzip {args.gzip})' if args.gzip else ''} "
          f"({per_row} values a row: "
          f"{args.rows * args.columns * 4 / 2**30:.2f} GiB dense, {os.path.getsize(src) / 2**20:.0f} MiB stored), "
          f"file to file; threads {args.threads}; best of {args.runs}; {huge_pages()}")
    floor = best_run(args.runs, lambda: {"wall": dd_wall(src, out("dd.bin")), "compute": None, "peak": None})
    limits = [limit for limit in args.limits.split(",") if limit]
    refused = {"wall": None, "compute": None, "peak": None}
    layouts = {"csc": ("csc", "csr", "dense"), "coo_shuffled": ("csr", "dense", "csc")}.get(args.input, ("coo", "csr", "csc"))
    for layout in layouts:
        previous = [(f"previous build, {limit or 'default budget'}" + ("" if run else ": refused"), run or refused)
                    for limit in ["", *limits] if args.previous
                    for run in [previous_build(layout, *(["--memory-limit", limit] if limit else []))]]
        ours_default = best_run(args.runs, sparsity(layout))
        ours_bounded = [(f"sparsity convert --memory-limit {limit}", best_run(args.runs, sparsity(layout, "--memory-limit", limit)))
                        for limit in limits]
        torch_run = best_run(args.runs, script(layout, "torch"))
        scipy_run = best_run(args.runs, script(layout, "scipy"))
        parts = ("",) if layout == "dense" else ("/indices", "/values") if layout == "coo" else ("/indptr", "/indices", "/data")
        with h5py.File(out("ours.h5")) as a:
            for library in ("torch", "scipy"):
                with h5py.File(out(f"{library}.h5")) as b:
                    for part in parts:
                        assert np.array_equal(a["x" + part][()], b["x" + part][()]), f"{layout}: ours and {library} differ in {part}"
        print(f"\ninto {layout}")
        print_run_table([
            ("sparsity convert (default budget)", ours_default),
            *ours_bounded,
            *previous,
            ("h5py + torch script", torch_run),
            ("h5py + scipy script", scipy_run),
            ("dd bs=4M, the input read + written", floor)])
        print(f"whole command vs h5py + torch: {torch_run['wall'] / ours_default['wall']:.2f}x faster; "
              f"vs h5py + scipy: {scipy_run['wall'] / ours_default['wall']:.2f}x; "
              f"{ours_default['wall'] / floor['wall']:.1f}x dd's time")


if __name__ == "__main__":
    main()
