#!/usr/bin/python3
"""Sparsifier benchmarks (issue 4): ours vs PyTorch 1.13 on the same data, same run.

    bench_sparsify.py BENCH_BINARY WORKDIR [--runs N]

  threshold  64M float32 (8192 x 8192): torch `m = x.abs() >= t; y = x * m` vs our mask + squash.
             Goals: >= 1.5x torch, and within 1.3x of a plain copy of the same bytes (ours).
  data-norm  4096 x 4096 float32, block 1x4, level 0.5, L1: torch DataNormSparsifier.step()
             vs our mask. Goal >= 5x.
Best of N; outputs allocated inside the timed region on both sides; the kept counts must agree."""
import os

import h5py
import numpy as np
import torch
from torch.ao.sparsity._experimental.data_sparsifier import DataNormSparsifier

from bench_common import bench_setup, best_of, ours


def main():
    args = bench_setup(runs=5)
    rng = np.random.default_rng(0)
    path = os.path.join(args.workdir, "sparsify.h5")
    x = rng.standard_normal((8192, 8192), dtype=np.float32)
    d = rng.standard_normal((4096, 4096), dtype=np.float32)
    with h5py.File(path, "w") as f:
        f["x"] = x
        f["d"] = d

    tx = torch.from_numpy(x)
    t = 0.5
    def torch_threshold():
        m = tx.abs() >= t
        return tx * m
    t_torch = best_of(args.runs, torch_threshold)
    kept_torch = int((tx.abs() >= t).sum())
    r = ours(args.binary, "threshold", path, "/x", t, args.runs)
    c = ours(args.binary, "memcpy", path, "/x", 0, args.runs)
    assert r["kept"] == kept_torch, (r["kept"], kept_torch)

    td = torch.from_numpy(d)
    def torch_data_norm():
        s = DataNormSparsifier(sparsity_level=0.5, sparse_block_shape=(1, 4), norm="L1")
        s.add_data("d", td.clone())
        s.step()
        return s.get_mask("d")
    t_dn = best_of(max(1, args.runs // 2), torch_data_norm)
    kept_dn = int(torch_data_norm().sum())
    rd = ours(args.binary, "data-norm", path, "/d", 0.5, args.runs)
    assert rd["kept"] == kept_dn, (rd["kept"], kept_dn)

    print(f"threads: torch {torch.get_num_threads()}, ours {r['threads']}")
    print(f"{'benchmark':40} {'reference':>22} {'ref s':>8} {'ours s':>8} {'ratio':>6}  goal")
    print(f"{'threshold 64M f32 (mask + squash)':40} {'abs() >= t; x * m':>22} {t_torch:8.4f} {r['seconds']:8.4f} "
          f"{t_torch / r['seconds']:6.2f}  >= 1.5x")
    print(f"{'  same bytes, plain copy (ours)':40} {'memcpy':>22} {c['seconds']:8.4f} {r['seconds']:8.4f} "
          f"{c['seconds'] / r['seconds']:6.2f}  ours within 1.3x of memcpy (ratio >= 0.77)")
    print(f"{'data-norm 4096^2, block 1x4, L1':40} {'DataNormSparsifier':>22} {t_dn:8.4f} {rd['seconds']:8.4f} "
          f"{t_dn / rd['seconds']:6.2f}  >= 5x")


if __name__ == "__main__":
    main()
