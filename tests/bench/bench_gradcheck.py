#!/usr/bin/python3
"""gradcheck benchmarks (issue 6): ours vs torch.autograd.gradcheck (PyTorch 1.13), same
data, same run.

    bench_gradcheck.py BENCH_BINARY WORKDIR [--runs N] [--cli SPARSITY]

  full  softmax(mm(x, w), 1) with x, w float64 24 x 24: whole numerical and analytical
        Jacobians (576 x 576 per input). Goal >= 10x torch.
  fast  the same on 512 x 512 inputs in fast mode (one random projection per input), vs
        torch's fast_mode=True.
Both sides must pass.

The headline is the command a user runs: `sparsity gradcheck --json` (--cli; by default the
one built beside BENCH_BINARY, build/release/app/cli/sparsity), a fresh process each time: its wall time and
its compute_seconds (median and best of 2*RUNS+1 runs; a fresh process faults in its memory,
which on a virtual machine varies from run to run). The kernel column is the check alone in
a warm process (bench_gradcheck, best of RUNS)."""
import os
import statistics
import subprocess
import time
import json

import h5py
import numpy as np
import torch

from bench_common import bench_setup, best_of, ours


def f(x, w):
    return torch.softmax(x @ w, 1)


def command(cli, path, fast, runs):
    """Median and best wall and compute_seconds of `sparsity gradcheck` over fresh processes."""
    argv = [cli, "gradcheck", "--expr", "softmax(mm(x, w), 1)", "--input", f"x={path}:/x",
            "--input", f"w={path}:/w", "--json"] + (["--fast"] if fast else [])
    walls, computes = [], []
    for _ in range(runs):
        start = time.perf_counter()
        out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
        walls.append(time.perf_counter() - start)
        report = json.loads(out)
        assert report["passed"], report
        computes.append(report["compute_seconds"])
    return statistics.median(walls), statistics.median(computes), min(computes)


def main():
    args = bench_setup(runs=3)
    cli = args.cli or os.path.join(os.path.dirname(os.path.abspath(args.binary)), "..", "..", "app", "cli", "sparsity")
    rng = np.random.default_rng(0)
    rows = []
    for mode, n in (("full", 24), ("fast", 512)):
        x = rng.standard_normal((n, n)) / np.sqrt(n)
        w = rng.standard_normal((n, n)) / np.sqrt(n)
        path = os.path.join(args.workdir, f"gradcheck_{n}.h5")
        with h5py.File(path, "w") as h:
            h["x"], h["w"] = x, w
        tx = torch.from_numpy(x).requires_grad_()
        tw = torch.from_numpy(w).requires_grad_()
        fast = mode == "fast"
        assert torch.autograd.gradcheck(f, (tx, tw), fast_mode=fast)
        t_torch = best_of(args.runs, lambda: torch.autograd.gradcheck(f, (tx, tw), fast_mode=fast))
        r = ours(args.binary, path, mode, args.runs)
        assert r["passed"], r
        wall, compute, best_compute = command(cli, path, fast, 2 * args.runs + 1)
        rows.append((f"softmax(mm(x, w), 1) {n}x{n} {mode}", t_torch, wall, compute, best_compute, r["seconds"],
                     ">= 10x" if mode == "full" else "-"))
    print(f"threads: torch {torch.get_num_threads()}, ours {r['threads']}; float64; command: {os.path.normpath(cli)}")
    print(f"{'gradcheck':36} {'torch s':>9} {'cmd wall':>9} {'compute':>9} {'best':>9} {'ratio':>7} "
          f"{'kernel s':>9} {'ratio':>7}  goal")
    for name, t_torch, wall, compute, best_compute, kernel, goal in rows:
        print(f"{name:36} {t_torch:9.4f} {wall:9.4f} {compute:9.4f} {best_compute:9.4f} {t_torch / compute:7.1f} "
              f"{kernel:9.4f} {t_torch / kernel:7.1f}  {goal}")
    print("ratio: torch / the command's median compute_seconds, then torch / the kernel's best")


if __name__ == "__main__":
    main()
