#!/usr/bin/python3
"""Foundation benchmarks (issue 2): ours vs the Python reference on the same data, same run.

    bench_foundation.py BENCH_BINARY WORKDIR [--runs N]

  1. HDF5 read of a 256 MiB float32 dataset (8192 x 8192, written by h5py, contiguous):
     ours (core::readTensor) vs h5py `f["x"][:]`. Goal: ours <= 1.1x h5py's time.
  2. dense -> CSR of a 4096 x 4096 float32 matrix with 90% zeros: ours
     (core::denseToCompressed) vs scipy.sparse.csr_matrix(dense). Goal: faster than scipy.

Both sides read a warm page cache (one untimed read first); times are the best of N runs.
Prints a table with ratios (reference time / our time: > 1 means we are faster)."""
import os

import h5py
import numpy as np
import scipy.sparse as sp

from bench_common import bench_setup, best_of, ours


def main():
    args = bench_setup(runs=5)
    rng = np.random.default_rng(0)

    big = os.path.join(args.workdir, "read_256mb.h5")
    if not os.path.exists(big):
        with h5py.File(big, "w") as f:
            f.create_dataset("x", data=rng.standard_normal((8192, 8192), dtype=np.float32))
    with h5py.File(big) as f:
        f["x"][:]   # warm the page cache
        t_h5py = best_of(args.runs, lambda: f["x"][:])
    r = ours(args.binary, "read", big, "/x", args.runs)

    sparse_file = os.path.join(args.workdir, "dense_4096_90pct_zero.h5")
    a = rng.standard_normal((4096, 4096), dtype=np.float32)
    a[rng.random((4096, 4096)) < 0.9] = 0
    with h5py.File(sparse_file, "w") as f:
        f["a"] = a
    t_scipy = best_of(args.runs, lambda: sp.csr_matrix(a))
    c = ours(args.binary, "dense-to-csr", sparse_file, "/a", args.runs)
    assert c["nnz"] == np.count_nonzero(a), "nnz differs from numpy's count"

    rows = [
        ("HDF5 read 256 MiB float32", "h5py", t_h5py, r["seconds"], "ours <= 1.1x h5py time"),
        ("dense->CSR 4096^2, 90% zeros", "scipy", t_scipy, c["seconds"], "faster than scipy"),
    ]
    print(f"threads (ours): {r['threads']}")
    print(f"{'benchmark':32} {'reference':>10} {'ref s':>9} {'ours s':>9} {'ref/ours':>9}  goal")
    for name, ref, t_ref, t_ours, goal in rows:
        print(f"{name:32} {ref:>10} {t_ref:9.4f} {t_ours:9.4f} {t_ref / t_ours:9.2f}  {goal}")


if __name__ == "__main__":
    main()
