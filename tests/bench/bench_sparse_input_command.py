#!/usr/bin/python3
"""`sparsity sparsify` of a sparse (csr) input (issue 13): what a user runs, against the scripts a
user would write instead and against the floor of moving the same bytes, in one run.

    bench_sparse_input_command.py SPARSITY WORKDIR [--runs N] [--rows N] [--columns N]
                                  [--density F] [--threads N] [--previous OLD_SPARSITY]

Workload: one ROWS x COLUMNS float32 csr_matrix (default 100,000 x 4,096, 1% filled: 1.5 GiB
dense, 47 MiB stored), threshold 0.5, written as csr, file to file; with --input csc, a
csc_matrix of the same size and density (under --memory-limit 64M, too large to hold
coalesced: read in bands of rows).
  ours           `sparsity sparsify in.h5 -o out.h5 --method threshold --threshold 0.5
                 --layout csr --json` (default budget: the stored values fit, and are all it
                 works on), and under --memory-limit 64M, where they do not fit (streamed: the
                 rows densified a block at a time, the dense size's work)
  h5py + torch   read the csr with h5py, `torch.sparse_csr_tensor(...).to_dense()`,
                 `x * (x.abs() >= t)`, `.to_sparse_csr()`, written with h5py; the dense
                 semantics, as ours (torch.set_num_threads(THREADS))
  h5py + scipy   read into scipy.sparse.csr_matrix, `m.data[abs(m.data) < t] = 0`,
                 `m.eliminate_zeros()`, written with h5py: threshold on the stored values alone,
                 what a user who knows the data is sparse writes
  dd             `dd if=in.h5 of=copy bs=4M`: the input's bytes read and written
  previous       optionally, the same command (default budget) from another build
Columns: wall seconds (process start to exit for ours and dd; open to close for the scripts,
imports excluded), compute seconds (ours: compute_seconds; the scripts: their op), peak
resident memory (ours: its VmHWM; the scripts: their own rusage). Best of N runs; the file is
in the page cache after the first. The three outputs must hold the same data, indices and
indptr."""
import json
import os
import sys

import h5py
import numpy as np

from bench_common import best_run, csr_command_bench, dd_wall, huge_pages, print_run_table, timed

READ_CSR = r"""
import json, resource, sys, time
import h5py, numpy as np
src, dst, t, threads = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
def write(indptr, indices, data, shape):
    with h5py.File(dst, "w") as f:
        g = f.create_group("x")
        g.attrs["encoding-type"], g.attrs["encoding-version"] = "csr_matrix", "0.1.0"
        g.attrs["shape"] = list(shape)
        g["data"], g["indices"], g["indptr"] = data, indices, indptr
start = time.perf_counter()
with h5py.File(src, "r") as f:
    g = f["x"]
    shape, encoding = tuple(g.attrs["shape"]), g.attrs["encoding-type"]
    indptr, indices, data = g["indptr"][()], g["indices"][()], g["data"][()]
"""

TORCH_SCRIPT = READ_CSR + r"""
import torch
torch.set_num_threads(threads)
op = time.perf_counter()
compressed = torch.sparse_csc_tensor if encoding == "csc_matrix" else torch.sparse_csr_tensor
x = compressed(torch.from_numpy(indptr), torch.from_numpy(indices), torch.from_numpy(data), shape).to_dense()
s = (x * (x.abs() >= t)).to_sparse_csr()
op = time.perf_counter() - op
write(s.crow_indices().numpy(), s.col_indices().numpy(), s.values().numpy(), shape)
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "op": op, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""

SCIPY_SCRIPT = READ_CSR + r"""
import scipy.sparse
op = time.perf_counter()
compressed = scipy.sparse.csc_matrix if encoding == "csc_matrix" else scipy.sparse.csr_matrix
m = compressed((data, indices, indptr), shape=shape)
m.data[np.abs(m.data) < t] = 0
m.eliminate_zeros()
m = m.tocsr()  # a csc input's rows, columns ascending (canonical), as ours writes them
op = time.perf_counter() - op
write(m.indptr.astype(np.int64), m.indices.astype(np.int64), m.data, shape)
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "op": op, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def main():
    args, src, per_row = csr_command_bench()
    rows, columns, t = args.rows, args.columns, 0.5
    out = lambda name: os.path.join(args.workdir, name)

    def sparsity(*extra, binary=None):
        def once():
            if os.path.exists(out("ours.h5")):
                os.remove(out("ours.h5"))
            wall, stdout, _ = timed([binary or args.sparsity, "sparsify", src, "-o", out("ours.h5"), "--method", "threshold",
                                     "--threshold", str(t), "--layout", "csr", "--json", *extra])
            r = json.loads(stdout)
            return {"wall": wall, "compute": r["compute_seconds"], "peak": r["peak_memory_bytes"],
                    "streamed": r["datasets"][0]["streamed"], "stored": r["datasets"][0]["stored_values_only"]}
        return once

    def script(text, name):
        def once():
            if os.path.exists(out(name)):
                os.remove(out(name))
            _, stdout, _ = timed([sys.executable, "-c", text, src, out(name), str(t), str(args.threads)])
            r = json.loads(stdout)
            return {"wall": r["wall"], "compute": r["op"], "peak": r["peak"]}
        return once

    previous = best_run(args.runs, sparsity(binary=args.previous)) if args.previous else None
    ours_default = best_run(args.runs, sparsity())
    ours_streamed = best_run(args.runs, sparsity("--memory-limit", "64M"))
    torch_run = best_run(args.runs, script(TORCH_SCRIPT, "torch.h5"))
    scipy_run = best_run(args.runs, script(SCIPY_SCRIPT, "scipy.h5"))
    floor = best_run(args.runs, lambda: {"wall": dd_wall(src, out("dd.bin")), "compute": None, "peak": None})
    with h5py.File(out("ours.h5")) as a, h5py.File(out("torch.h5")) as b, h5py.File(out("scipy.h5")) as c:
        for part in ("data", "indices", "indptr"):
            ours_part = a["x/" + part][()]
            for other, what in ((b, "torch"), (c, "scipy")):
                assert np.array_equal(ours_part, other["x/" + part][()]), f"ours and {what} differ in {part}"

    print(f"threshold {t} of a {rows} x {columns} float32 {args.input} ({per_row} values a "
          f"{'column' if args.input == 'csc' else 'row'}: "
          f"{rows * columns * 4 / 2**30:.2f} GiB dense, {os.path.getsize(src) / 2**20:.0f} MiB stored), {args.input} file to "
          f"csr file; threads {args.threads}; best of {args.runs}; {huge_pages()}")
    how = lambda r: "stored values only" if r["stored"] else "streamed" if r["streamed"] else "one block read"
    print_run_table([
        (f"sparsity sparsify (default budget, {how(ours_default)})", ours_default),
        (f"sparsity sparsify --memory-limit 64M ({how(ours_streamed)})", ours_streamed),
        *([("previous build, default budget", previous)] if previous else []),
        ("h5py + torch script (dense semantics)", torch_run),
        ("h5py + scipy script (stored values alone)", scipy_run),
        ("dd bs=4M, the input read + written", floor)])
    print(f"whole command vs h5py + torch: {torch_run['wall'] / ours_default['wall']:.2f}x faster; "
          f"streamed {torch_run['wall'] / ours_streamed['wall']:.2f}x")
    print(f"whole command vs h5py + scipy: {scipy_run['wall'] / ours_default['wall']:.2f}x faster; "
          f"streamed {scipy_run['wall'] / ours_streamed['wall']:.2f}x")
    print(f"whole command vs dd: {ours_default['wall'] / floor['wall']:.1f}x dd's time; "
          f"streamed {ours_streamed['wall'] / floor['wall']:.1f}x")


if __name__ == "__main__":
    main()
