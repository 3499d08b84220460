#!/usr/bin/python3
"""`sparsity-mpi sparsify` on 1 and 2 ranks against `sparsity` (issue 15, docs/SCALING.md):
the whole command a user runs, against the script a user would write instead and the cost of
moving the same bytes, in one run.

    bench_mpi.py SPARSITY SPARSITY_MPI MPIRUN WORKDIR [--runs N] [--rows N] [--more-ranks N,N...]

Workload: data-norm, sparsity level 0.5, 4x4 blocks (L1), on one ROWS x 2048 float32 dataset
(default 65536 rows: 512 MiB), file to file, dense output.
  sparsity            `sparsity sparsify big.h5 -o out.h5 --method data-norm ... --json`
  sparsity-mpi -np N  the same under `mpirun -np N` (N = 1, 2 and --more-ranks' on a larger
                      machine); OMP threads = cores / N, and -np 1 with one thread (the rank
                      scaling at equal threads per rank)
  mpirun alone        `mpirun -np 2 sparsity-mpi --version`: the launch's own cost
  h5py + torch        read with h5py, L1 block means by avg_pool2d, the k lowest by topk, mask, write
  dd                  `dd bs=4M`: the same bytes read and written
Columns: wall seconds (process start to exit; the script's `import torch` excluded), compute
seconds (the report's; torch: pooling + topk + mask), peak resident memory of the largest
process (mpirun's children included). Best of N runs, the file in the page cache. The MPI
outputs must equal the serial one, value for value."""
import argparse
import json
import os
import sys

import h5py
import numpy as np

from bench_common import best_run, dd_wall, timed

TORCH_SCRIPT = r"""
import json, resource, sys, time
import h5py, torch
src, dst, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
torch.set_num_threads(threads)
start = time.perf_counter()
with h5py.File(src, "r") as f:
    x = torch.from_numpy(f["x"][()])
op = time.perf_counter()
scores = torch.nn.functional.avg_pool2d(x.abs()[None, None], 4, 4, ceil_mode=True)[0, 0]
k = round(0.5 * scores.numel())
dropped = torch.zeros(scores.numel(), dtype=torch.bool)
dropped[torch.topk(scores.flatten(), k, largest=False).indices] = True
mask = ~dropped.view(scores.shape).repeat_interleave(4, 0).repeat_interleave(4, 1)[: x.shape[0], : x.shape[1]]
y = x * mask
op = time.perf_counter() - op
with h5py.File(dst, "w") as f:
    f["x"] = y.numpy()
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "op": op, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def main():
    parser = argparse.ArgumentParser()
    for name in ("sparsity", "sparsity_mpi", "mpirun", "workdir"):
        parser.add_argument(name)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rows", type=int, default=65536)
    parser.add_argument("--more-ranks", default="", help="rank counts beyond 2 to time, e.g. 4,8,16")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    src = os.path.join(args.workdir, "big.h5")
    cols = 2048
    with h5py.File(src, "w") as f:
        d = f.create_dataset("x", (args.rows, cols), "float32")
        rng = np.random.default_rng(0)
        for first in range(0, args.rows, 8192):
            d[first:first + 8192] = rng.standard_normal((min(8192, args.rows - first), cols), dtype=np.float32)
    out = lambda name: os.path.join(args.workdir, name)
    method = ["--method", "data-norm", "--sparsity-level", "0.5", "--block", "4x4", "--norm", "L1", "--json"]

    def ours(name, prefix, binary, threads=None):
        env = dict(os.environ, **({"OMP_NUM_THREADS": str(threads)} if threads else {}))

        def once():
            if os.path.exists(out(name)):
                os.remove(out(name))
            wall, stdout, peak = timed([*prefix, binary, "sparsify", src, "-o", out(name), *method], env)
            return {"wall": wall, "compute": json.loads(stdout)["compute_seconds"], "peak": peak}
        return once

    def torch_script():
        if os.path.exists(out("torch.h5")):
            os.remove(out("torch.h5"))
        _, stdout, _ = timed([sys.executable, "-c", TORCH_SCRIPT, src, out("torch.h5"), str(os.cpu_count())])
        r = json.loads(stdout)
        return {"wall": r["wall"], "compute": r["op"], "peak": r["peak"]}

    def dd():
        return {"wall": dd_wall(src, out("dd.bin")), "compute": None, "peak": None}

    best = lambda f: best_run(args.runs, f)
    # --bind-to none: OpenMPI binds one or two ranks to a core each, so -np 1 would run its
    # threads on one of the two cores.
    mpirun = lambda n: [args.mpirun, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", str(n)]
    rows = [("sparsity (one process)", best(ours("serial.h5", [], args.sparsity))),
            ("sparsity-mpi, mpirun -np 1", best(ours("mpi1.h5", mpirun(1), args.sparsity_mpi))),
            ("sparsity-mpi, mpirun -np 1, 1 thread", best(ours("mpi1t.h5", mpirun(1), args.sparsity_mpi, threads=1))),
            ("sparsity-mpi, mpirun -np 2", best(ours("mpi2.h5", mpirun(2), args.sparsity_mpi))),
            ("mpirun -np 2 sparsity-mpi --version", best(lambda: {"wall": timed([*mpirun(2), args.sparsity_mpi, "--version"])[0],
                                                                 "compute": None, "peak": None})),
            ("h5py + torch script (import excluded)", best(torch_script)),
            ("dd bs=4M, same bytes read + written", best(dd))]
    more = [int(n) for n in args.more_ranks.split(",") if n]
    rows += [(f"sparsity-mpi, mpirun -np {n}", best(ours(f"mpi{n}.h5", mpirun(n), args.sparsity_mpi))) for n in more]
    with h5py.File(out("serial.h5")) as a:
        reference = a["x"][()]
    for name in ("mpi1.h5", "mpi1t.h5", "mpi2.h5", *(f"mpi{n}.h5" for n in more)):
        with h5py.File(out(name)) as f:
            assert np.array_equal(reference, f["x"][()]), f"{name} differs from sparsity's output"

    mib = lambda b: "-" if b is None else f"{b / 2**20:8.0f}"
    sec = lambda s: "-" if s is None else f"{s:8.3f}"
    size = args.rows * cols * 4 / 2**20
    print(f"data-norm 0.5, 4x4 L1 blocks, {args.rows} x {cols} float32 ({size:.0f} MiB) file to file; "
          f"{os.cpu_count()} cores; best of {args.runs}")
    print(f"{'run':40} {'wall s':>8} {'compute s':>9} {'peak MiB':>8}")
    for name, r in rows:
        print(f"{name:40} {sec(r['wall']):>8} {sec(r['compute']):>9} {mib(r['peak']):>8}")
    one, one_thread, two = rows[1][1]["wall"], rows[2][1]["wall"], rows[3][1]["wall"]
    print(f"2 ranks vs 1 rank (every core each time): {one / two:.2f}x faster (goal >= 1.4x); "
          f"vs 1 rank of 1 thread: {one_thread / two:.2f}x")
    print(f"2 ranks vs h5py + torch: {rows[5][1]['wall'] / two:.2f}x faster; vs dd: {two / rows[6][1]['wall']:.2f}x dd's time")
    for n, (_, r) in zip(more, rows[7:]):
        print(f"{n} ranks vs 1 rank: {one / r['wall']:.2f}x faster")


if __name__ == "__main__":
    main()
