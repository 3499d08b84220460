#!/usr/bin/python3
"""Masked expression benchmarks (issue 3): ours vs torch.masked (PyTorch 1.13) on the same
data, same run.

    bench_eval.py BENCH_BINARY WORKDIR [--runs N]

Inputs: x, y float32 2048 x 2048 (4M elements) sharing one random mask with 50% specified.
Each expression runs as MaskedTensor code on the torch side and through our evaluator (fused
elementwise programs, fused reductions) on ours. Best of N; both sides allocate their
results; the sums of the specified results must agree. Goal: >= 20x torch.masked."""
import os
import warnings

import h5py
import numpy as np
import torch
from torch.masked import masked_tensor

from bench_common import bench_setup, best_of, ours

warnings.filterwarnings("ignore")

CASES = [
    ("sum(sqrt(abs(x)) * x + 1.5, 1)", lambda x, y: torch.sum(x.abs().sqrt() * x + 1.5, 1)),
    ("x * y + x", lambda x, y: x * y + x),
    ("amax(exp(x) - y, 0)", lambda x, y: torch.amax(x.exp() - y, 0)),
    ("softmax(x, 1)", lambda x, y: torch.softmax(x, 1)),
]


def checksum(result):
    data, mask = result.get_data(), result.get_mask()
    return float(data[mask].double().sum()), int(mask.sum())


def main():
    args = bench_setup(runs=5)
    rng = np.random.default_rng(0)
    shape = (2048, 2048)
    x = rng.standard_normal(shape, dtype=np.float32)
    y = rng.standard_normal(shape, dtype=np.float32)
    m = rng.random(shape) < 0.5
    path = os.path.join(args.workdir, "eval.h5")
    with h5py.File(path, "w") as f:
        f["x"], f["y"], f["m"] = x, y, m
    mx = masked_tensor(torch.from_numpy(x), torch.from_numpy(m))
    my = masked_tensor(torch.from_numpy(y), torch.from_numpy(m))

    rows = []
    threads = None
    for expression, fn in CASES:
        t_torch = best_of(args.runs, lambda: fn(mx, my))
        total, count = checksum(fn(mx, my))
        r = ours(args.binary, path, expression, args.runs)
        threads = r["threads"]
        assert r["specified"] == count, (expression, r["specified"], count)
        assert abs(r["checksum"] - total) <= 1e-4 * max(1.0, abs(total)), (expression, r["checksum"], total)
        rows.append((expression, t_torch, r["seconds"]))

    print(f"threads: torch {torch.get_num_threads()}, ours {threads}; 2048 x 2048 float32, 50% specified")
    print(f"{'expression':36} {'torch.masked s':>14} {'ours s':>9} {'ratio':>7}  goal")
    for expression, t_torch, t_ours in rows:
        print(f"{expression:36} {t_torch:14.4f} {t_ours:9.4f} {t_torch / t_ours:7.1f}  >= 20x")


if __name__ == "__main__":
    main()
