#!/usr/bin/python3
"""Optimizer-step benchmarks (issue 5): ours vs PyTorch 1.13 on the same data, same run.

    bench_optim.py BENCH_BINARY WORKDIR [--runs N]

  lazy-adagrad    1,000,000 x 64 float32 table, 5 steps of 10,000 rows each (about 10% repeated
                  ids), torch.optim.Adagrad with sparse COO gradients. Goal >= 5x.
  sparse-adam     the same data, torch.optim.SparseAdam. Goal >= 5x (not stated; reported).
  masked-adagrad  the same data, the seed's torch.masked formulation (MaskedTensor tutorial) vs
                  our masked semantics. Goal >= 50x.
  dense-adam      16M float32 parameters (4096 x 4096), 3 dense steps, torch.optim.Adam.
                  Goal >= 1x, near memory bandwidth.

Times are best-of-N of the whole multi-step run from fresh state, the same work on both
sides: optimizer construction / state allocation plus every step (data loading excluded).
`steps s` is ours without the state allocation. `GB/s` is the least memory traffic a step must make (read+write of the
parameter and states on touched elements, plus the gradient) over our steps-only time, next to numpy's
memcpy bandwidth on this machine: how close we are to the physical limit."""
import os
import time

import h5py
import numpy as np
import torch
from torch.masked import masked_tensor

from bench_common import bench_setup, best_of, ours, write_coo

ROWS, WIDTH, STEPS, BATCH = 1_000_000, 64, 5, 10_000


def make_table_data(path, rng):
    param = rng.standard_normal((ROWS, WIDTH), dtype=np.float32)
    grads = []
    for _ in range(STEPS):
        unique = rng.choice(ROWS, BATCH - BATCH // 10, replace=False)
        rows = np.concatenate([unique, rng.choice(unique, BATCH // 10)])   # ~10% repeated ids
        rng.shuffle(rows)
        grads.append((rows, rng.standard_normal((BATCH, WIDTH), dtype=np.float32)))
    with h5py.File(path, "w") as f:
        f["param"] = param
        g = f.create_group("grads")
        for k, (rows, values) in enumerate(grads):
            write_coo(g, str(k), rows, values, (ROWS, WIDTH))
    return param, grads


def torch_sparse(opt_class, param, grads, runs, **kw):
    """Best time of constructing the optimizer (Adagrad allocates its state there, SparseAdam
    in its first step) plus every step, from the same parameter each run; and the result."""
    tg = [torch.sparse_coo_tensor(torch.from_numpy(r[None, :]), torch.from_numpy(v), (ROWS, WIDTH)) for r, v in grads]
    best = float("inf")
    for _ in range(runs):
        p = torch.nn.Parameter(torch.from_numpy(param.copy()))
        start = time.perf_counter()
        opt = opt_class([p], **kw)
        for g in tg:
            p.grad = g
            opt.step()
        best = min(best, time.perf_counter() - start)
    return p, best


def torch_masked_adagrad(param, grads, lr=0.1, eps=1e-10):
    """The seed: Adagrad written with torch.masked (MaskedTensor tutorial), step by step."""
    p = torch.from_numpy(param.copy())
    state_sum = torch.full_like(p, 0.5)
    dense_grads = []
    for rows, values in grads:
        d = torch.zeros(ROWS, WIDTH)
        d.index_add_(0, torch.from_numpy(rows), torch.from_numpy(values))
        mask = torch.zeros(ROWS, WIDTH, dtype=torch.bool)
        mask[torch.from_numpy(rows)] = True
        dense_grads.append((d, mask))
    for d, mask in dense_grads:
        masked_grad = masked_tensor(d, mask)
        state_sum2 = state_sum + masked_grad.pow(2).get_data()
        std2 = masked_tensor(state_sum2, mask).sqrt().add(eps)
        p = p.add((masked_grad / std2).get_data(), alpha=-lr)
        state_sum = torch.where(mask, state_sum2, state_sum)
    return p


def memcpy_bandwidth():
    a = np.ones(64 << 20, dtype=np.uint8)
    b = np.empty_like(a)
    np.copyto(b, a)
    t = best_of(5, lambda: np.copyto(b, a))
    return 2 * a.nbytes / t / 1e9   # read + write


def main():
    args = bench_setup(runs=3)
    rng = np.random.default_rng(0)
    table = os.path.join(args.workdir, "table_1m_x_64.h5")
    param, grads = make_table_data(table, rng)
    rows = []

    p, t_torch = torch_sparse(torch.optim.Adagrad, param, grads, args.runs, lr=0.1)
    r = ours(args.binary, "lazy-adagrad", table, args.runs)
    check = float(p.detach().double().sum())
    rows.append(("lazy Adagrad 1M x 64, 5 x 10k rows", "Adagrad(sparse)", t_torch, r, check, ">= 5x"))

    p, t_torch = torch_sparse(torch.optim.SparseAdam, param, grads, args.runs, lr=0.01)
    r = ours(args.binary, "sparse-adam", table, args.runs)
    rows.append(("SparseAdam 1M x 64, 5 x 10k rows", "SparseAdam", t_torch, r, float(p.detach().double().sum()), "(>= 5x)"))

    start = time.perf_counter()
    p = torch_masked_adagrad(param, grads)
    t_torch = time.perf_counter() - start
    r = ours(args.binary, "masked-adagrad", table, args.runs)
    rows.append(("masked Adagrad 1M x 64, 5 steps", "torch.masked", t_torch, r, float(p.double().sum()), ">= 50x"))

    dense = os.path.join(args.workdir, "dense_16m.h5")
    dparam = rng.standard_normal((4096, 4096), dtype=np.float32)
    dgrads = [rng.standard_normal((4096, 4096), dtype=np.float32) for _ in range(3)]
    with h5py.File(dense, "w") as f:
        f["param"] = dparam
        for k, g in enumerate(dgrads):
            f[f"grads/{k}"] = g
    best = float("inf")
    for _ in range(args.runs):
        p = torch.nn.Parameter(torch.from_numpy(dparam.copy()))
        tg = [torch.from_numpy(g) for g in dgrads]
        start = time.perf_counter()
        opt = torch.optim.Adam([p], lr=0.01)
        for g in tg:
            p.grad = g
            opt.step()
        best = min(best, time.perf_counter() - start)
    r = ours(args.binary, "dense-adam", dense, args.runs)
    rows.append(("dense Adam 16M params, 3 steps", "Adam", best, r, float(p.detach().double().sum()), ">= 1x"))

    bandwidth = memcpy_bandwidth()
    print(f"threads: torch {torch.get_num_threads()}, ours {r['threads']}; numpy memcpy bandwidth {bandwidth:.1f} GB/s")
    print(f"{'benchmark':38} {'reference':>16} {'ref s':>8} {'ours s':>8} {'ratio':>7} {'steps s':>8} {'GB/s':>6} {'of memcpy':>9}  goal   result sum (ours / torch)")
    for name, ref, t_ref, r, check, goal in rows:
        gbs = r["min_bytes"] / r["steps_seconds"] / 1e9
        agree = abs(r["checksum"] - check) <= 1e-5 * max(abs(check), 1.0)
        print(f"{name:38} {ref:>16} {t_ref:8.4f} {r['seconds']:8.4f} {t_ref / r['seconds']:7.1f} {r['steps_seconds']:8.4f} {gbs:6.1f} {gbs / bandwidth:8.0%}  {goal:6} "
              f"{r['checksum']:.6g} / {check:.6g} {'ok' if agree else 'DIFFER'}")


if __name__ == "__main__":
    main()
