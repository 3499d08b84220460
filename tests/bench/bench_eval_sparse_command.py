#!/usr/bin/python3
"""The whole `sparsity eval` command over a sparse input (issue 13): what a user runs, against
the scripts a user would write instead and against the floor of moving the same bytes, in one run.

    bench_eval_sparse_command.py SPARSITY WORKDIR [--runs N] [--rows N] [--columns N] [--density D]
                                 [--threads N] [--previous OLD_SPARSITY]

Workload: a ROWS x COLUMNS float32 csr_matrix (default 100,000 x 4,096, 41 values a row: 1.53
GiB dense, 48 MiB stored), expression `sum(s * s, 1)` (each row's sum of squares: a reduction
over the values a sparse tensor stands for), file to file; with --input csc, a csc_matrix of the
same size and density (densified from bands of its rows); with --input coo_shuffled, a coo_tensor
of those entries in a random order (bands of 8 MiB, spilled sorted by row, since stop 53; the
scripts coalesce it, `coalesce()` or `tocsr()`, inside their op).
  ours           `sparsity eval --expr 'sum(s * s, 1)' --input s=sparse.h5:/x -o out.h5 --json`
                 (default budget: densified a block of rows at a time), and again under
                 --memory-limit 64M; the whole evaluation (`--print` holds the result, so the
                 inputs are read whole: what every build before this one did)
  h5py + torch   read the csr with h5py, `torch.sparse_csr_tensor(...).to_sparse_coo()`,
                 `torch.sparse.sum(s * s, 1).to_dense()`, write the result with h5py;
                 torch.set_num_threads(THREADS)
  h5py + scipy   `csr_matrix(...)`, `s.multiply(s).sum(axis=1)`, written with h5py
  dd             `dd bs=4M` of the input file to a copy
  previous       optionally, the same command from another build
Columns: wall seconds (process start to exit for ours and dd; open to close for the scripts,
their imports excluded), compute seconds (ours: compute_seconds; the scripts: the op), peak
resident memory. Best of N runs, page cache warm on every side. The results must agree to float
rounding (our sums of squares accumulate in double, torch's and scipy's in float32)."""
import json
import os
import sys

import h5py
import numpy as np

from bench_common import PEAK_OF, best_run, csr_command_bench, dd_wall, huge_pages, print_run_table, timed

EXPRESSION = "sum(s * s, 1)"

SCRIPTS = {
    "torch": r"""
import json, resource, sys, time
import h5py, torch
src, dst, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
torch.set_num_threads(threads)
start = time.perf_counter()
with h5py.File(src, "r") as f:
    g = f["x"]
    if g.attrs["encoding-type"] == "coo_tensor":
        s = torch.sparse_coo_tensor(torch.from_numpy(g["indices"][()]), torch.from_numpy(g["values"][()]),
                                    tuple(g.attrs["shape"]))
    else:
        compressed = torch.sparse_csc_tensor if g.attrs["encoding-type"] == "csc_matrix" else torch.sparse_csr_tensor
        s = compressed(torch.from_numpy(g["indptr"][()]), torch.from_numpy(g["indices"][()]),
                       torch.from_numpy(g["data"][()]), tuple(g.attrs["shape"]))
op = time.perf_counter()
c = s.coalesce() if s.layout == torch.sparse_coo else s.to_sparse_coo()
r = torch.sparse.sum(c * c, 1).to_dense()
op = time.perf_counter() - op
with h5py.File(dst, "w") as f:
    f["result"] = r.numpy()
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "op": op, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
""",
    "scipy": r"""
import json, resource, sys, time
import h5py, numpy as np, scipy.sparse as sp
src, dst = sys.argv[1], sys.argv[2]
start = time.perf_counter()
with h5py.File(src, "r") as f:
    g = f["x"]
    if g.attrs["encoding-type"] == "coo_tensor":
        indices = g["indices"][()]
        s = sp.coo_matrix((g["values"][()], (indices[0], indices[1])), shape=tuple(g.attrs["shape"]))
    else:
        compressed = sp.csc_matrix if g.attrs["encoding-type"] == "csc_matrix" else sp.csr_matrix
        s = compressed((g["data"][()], g["indices"][()], g["indptr"][()]), shape=tuple(g.attrs["shape"]))
op = time.perf_counter()
s = s.tocsr() if s.format == "coo" else s  # its duplicates summed
r = np.asarray(s.multiply(s).sum(axis=1)).ravel()
op = time.perf_counter() - op
with h5py.File(dst, "w") as f:
    f["result"] = r
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "op": op, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
""",
}


def main():
    args, src, per_row = csr_command_bench()
    out = lambda name: os.path.join(args.workdir, name)

    def sparsity(*extra, binary=None):
        def once():
            if os.path.exists(out("ours.h5")):
                os.remove(out("ours.h5"))
            wall, stdout, peak = timed([*PEAK_OF, binary or args.sparsity, "eval", "--expr", EXPRESSION, "--input",
                                        f"s={src}:/x", "-o", out("ours.h5"), "--json", *extra])
            r = json.loads(stdout)
            return {"wall": wall, "compute": r["compute_seconds"], "peak": r.get("peak_memory_bytes", peak),
                    "limit": r.get("memory_limit_bytes"), "streamed": r["result"].get("streamed", False)}
        return once

    def script(name):
        def once():
            if os.path.exists(out(f"{name}.h5")):
                os.remove(out(f"{name}.h5"))
            _, stdout, _ = timed([sys.executable, "-c", SCRIPTS[name], src, out(f"{name}.h5"), str(args.threads)])
            r = json.loads(stdout)
            return {"wall": r["wall"], "compute": r["op"], "peak": r["peak"]}
        return once

    floor = {"wall": min(dd_wall(src, out("dd.bin")) for _ in range(args.runs)), "compute": None, "peak": None}
    os.remove(out("dd.bin"))
    along = "column" if args.input == "csc" else "row"
    print(f"eval {EXPRESSION!r} over a {args.rows} x {args.columns} float32 {args.input} ({per_row} values a {along}); "
          f"threads {args.threads}; best of {args.runs}; {huge_pages()}")
    previous = best_run(args.runs, sparsity(binary=args.previous)) if args.previous else None
    ours_default = best_run(args.runs, sparsity())
    ours_64m = best_run(args.runs, sparsity("--memory-limit", "64M"))
    whole = best_run(args.runs, sparsity("--print"))
    torch_run = best_run(args.runs, script("torch"))
    scipy_run = best_run(args.runs, script("scipy"))
    with h5py.File(out("ours.h5")) as o, h5py.File(out("torch.h5")) as t, h5py.File(out("scipy.h5")) as s:
        ours_result = o["result"][()]
        for name, theirs in (("torch", t["result"][()]), ("scipy", s["result"][()])):
            assert np.allclose(ours_result, theirs, rtol=1e-4, atol=1e-4), f"{name}: results differ"
    table = [("sparsity eval (default budget" + (", streamed)" if ours_default["streamed"] else ")"), ours_default),
             ("sparsity eval --memory-limit 64M" + (" (streamed)" if ours_64m["streamed"] else ""), ours_64m),
             ("sparsity eval --print (whole, as before)", whole),
             *([("previous build, same command", previous)] if previous else []),
             ("h5py + torch script (sparse coo, imports excluded)", torch_run),
             ("h5py + scipy script (imports excluded)", scipy_run),
             ("dd bs=4M of the input file (read + written)", floor)]
    print_run_table(table)
    print(f"whole command vs h5py + torch: {torch_run['wall'] / ours_default['wall']:.2f}x faster; "
          f"vs h5py + scipy: {scipy_run['wall'] / ours_default['wall']:.2f}x; vs dd: {ours_default['wall'] / floor['wall']:.2f}x "
          f"dd's time; vs the whole evaluation: {whole['wall'] / ours_default['wall']:.2f}x faster, "
          f"peak {ours_default['peak'] / 2**20:.0f} MiB against {whole['peak'] / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
