#!/usr/bin/python3
"""gradcheck benchmarks (issue 6): ours vs torch.autograd.gradcheck (PyTorch 1.13), same
data, same run.

    bench_gradcheck.py BENCH_BINARY WORKDIR [--runs N]

  full  softmax(mm(x, w), 1) with x, w float64 24 x 24: whole numerical and analytical
        Jacobians (576 x 576 per input). Goal >= 10x torch.
  fast  the same on 512 x 512 inputs in fast mode (one random projection per input), vs
        torch's fast_mode=True.
Both sides must pass."""
import os

import h5py
import numpy as np
import torch

from bench_common import bench_setup, best_of, ours


def f(x, w):
    return torch.softmax(x @ w, 1)


def main():
    args = bench_setup(runs=3)
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
        rows.append((f"softmax(mm(x, w), 1) {n}x{n} {mode}", t_torch, r["seconds"], ">= 10x" if mode == "full" else "-"))
    print(f"threads: torch {torch.get_num_threads()}, ours {r['threads']}; float64")
    print(f"{'gradcheck':36} {'torch s':>9} {'ours s':>9} {'ratio':>7}  goal")
    for name, t_torch, t_ours, goal in rows:
        print(f"{name:36} {t_torch:9.4f} {t_ours:9.4f} {t_torch / t_ours:7.1f}  {goal}")


if __name__ == "__main__":
    main()
