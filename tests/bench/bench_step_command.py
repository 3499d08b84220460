#!/usr/bin/python3
"""The whole `sparsity step` command (issue 13): what a user runs, against the script a user
would write instead and against the floor of moving the same bytes, in one run.

    bench_step_command.py SPARSITY WORKDIR [--runs N] [--rows N] [--batch N] [--hot-rows N] [--limit SIZE]
                          [--threads N] [--previous OLD_SPARSITY]

Workload: lazy Adagrad (torch rule) on a ROWS x 64 float32 table (default 1,000,000: 244 MiB),
resumed from a previous step's output (--state-from: the parameter and its `sum` state), 5
steps of BATCH rows each (default 10,000; hybrid coo gradients, ids shuffled) with about 10%
repeated ids, file to file. With --hot-rows N every id is drawn from the first N rows instead (a
frequency-sorted vocabulary's hot ids: BATCH / N repeats of each, on average).
  ours           `sparsity step table.h5 -o out.h5 --state-from prev.h5 --grad /grads/0 ...
                 --optimizer adagrad --semantics lazy --json` (default budget), and again under
                 --memory-limit LIMIT (default 64M: streamed in more blocks; gradients that held
                 whole would not fit it are read a block of rows at a time, spilled sorted by row)
  h5py + torch   read the parameter and `sum` with h5py, build torch.optim.Adagrad and load the
                 state, 5 steps with sparse COO gradients, write both with h5py;
                 torch.set_num_threads(THREADS)
  dd             `dd bs=4M` of prev.h5 (the parameter and the state, read) to a copy (written):
                 the bytes a resumed step must move
  previous       optionally, the same command from another build (e.g. before a change)
Columns: wall seconds of the whole run (process start to exit for ours and dd; open to close
for the script, its `import torch` excluded), compute seconds (ours: compute_seconds of the
report; torch: its 5 steps, the optimizer built and its state loaded before the clock), peak
resident memory (ours: its VmHWM; the script: its own rusage, torch's ~250 MiB included).
Best of N runs taken in rounds (interleaved_best_runs); the files are in the page cache after
the first run (all sides alike). The
outputs must agree to float rounding."""
import json
import os
import subprocess
import sys

import h5py
import numpy as np

from bench_common import command_bench_parser, dd_wall, huge_pages, interleaved_best_runs, print_rounds, print_run_table, timed, write_coo

WIDTH, STEPS = 64, 5

TORCH_SCRIPT = r"""
import json, resource, sys, time
import h5py, torch
table, prev, dst, steps, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
torch.set_num_threads(threads)
start = time.perf_counter()
with h5py.File(prev, "r") as f:
    p = torch.nn.Parameter(torch.from_numpy(f["param"][()]))
    state_sum = torch.from_numpy(f["state/sum"][()])
    step = int(f["state/step"][()])
with h5py.File(table, "r") as f:
    grads = [torch.sparse_coo_tensor(torch.from_numpy(f[f"grads/{k}/indices"][()]),
                                     torch.from_numpy(f[f"grads/{k}/values"][()]), p.shape) for k in range(steps)]
opt = torch.optim.Adagrad([p], lr=0.01)
opt.state[p]["sum"] = state_sum
opt.state[p]["step"] = torch.tensor(float(step))
op = time.perf_counter()
for g in grads:
    p.grad = g
    opt.step()
op = time.perf_counter() - op
with h5py.File(dst, "w") as f:
    f["param"] = p.detach().numpy()
    f["state/sum"] = opt.state[p]["sum"].numpy()
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "op": op, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def main():
    parser = command_bench_parser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=10_000, help="rows of each step's gradient")
    parser.add_argument("--hot-rows", type=int, default=0, help="draw every id from the first N rows")
    parser.add_argument("--limit", default="64M", help="the streamed run's --memory-limit")
    args = parser.parse_args()
    batch = args.batch
    os.makedirs(args.workdir, exist_ok=True)
    out = lambda name: os.path.join(args.workdir, name)
    rows = args.rows
    rng = np.random.default_rng(0)
    with h5py.File(out("table.h5"), "w") as f:
        f["param"] = rng.standard_normal((rows, WIDTH), dtype=np.float32)
        g = f.create_group("grads")
        for k in range(STEPS + 1):  # the last one makes prev.h5
            if args.hot_rows:
                ids = rng.integers(0, args.hot_rows, batch)
            else:
                unique = rng.choice(rows, batch - batch // 10, replace=False)
                ids = np.concatenate([unique, rng.choice(unique, batch // 10)])  # ~10% repeated ids
            rng.shuffle(ids)
            write_coo(g, str(k), ids, rng.standard_normal((batch, WIDTH), dtype=np.float32), (rows, WIDTH))
    common = ["--optimizer", "adagrad", "--semantics", "lazy"]
    subprocess.run([args.sparsity, "step", out("table.h5"), "-o", out("prev.h5"), "--param", "/param",
                    "--grad", f"/grads/{STEPS}", *common], check=True, capture_output=True)
    grads = sum([["--grad", f"/grads/{k}"] for k in range(STEPS)], [])

    def sparsity(*extra, binary=None):
        def once():
            if os.path.exists(out("ours.h5")):
                os.remove(out("ours.h5"))
            wall, stdout, peak = timed([binary or args.sparsity, "step", out("table.h5"), "-o", out("ours.h5"),
                                        "--state-from", out("prev.h5"), *grads, *common, "--json", *extra])
            r = json.loads(stdout)
            return {"wall": wall, "compute": r["compute_seconds"], "peak": r.get("peak_memory_bytes", peak),
                    "limit": r.get("memory_limit_bytes"), "streamed": r.get("streamed", False)}
        return once

    def torch_script():
        if os.path.exists(out("torch.h5")):
            os.remove(out("torch.h5"))
        _, stdout, _ = timed([sys.executable, "-c", TORCH_SCRIPT, out("table.h5"), out("prev.h5"), out("torch.h5"),
                              str(STEPS), str(args.threads)])
        r = json.loads(stdout)
        return {"wall": r["wall"], "compute": r["op"], "peak": r["peak"]}

    def dd():
        return {"wall": dd_wall(out("prev.h5"), out("dd.bin")), "compute": None, "peak": None}

    # The previous build first: the outputs compared below are this build's.
    variants = {"previous": sparsity(binary=args.previous)} if args.previous else {}
    variants |= {"default": sparsity(), "streamed": sparsity("--memory-limit", args.limit), "torch": torch_script, "dd": dd}
    best = interleaved_best_runs(args.runs, variants)
    ours_default, ours_streamed, theirs, floor = best["default"], best["streamed"], best["torch"], best["dd"]
    previous = best.get("previous")
    with h5py.File(out("ours.h5")) as o, h5py.File(out("torch.h5")) as t:
        for name in ["param", "state/sum"]:
            assert np.allclose(o[name][()], t[name][()], rtol=1e-5, atol=1e-6), f"ours and torch differ on {name}"

    print(f"lazy adagrad resumed, {rows} x {WIDTH} float32 ({rows * WIDTH * 4 / 2**20:.0f} MiB) + state, {STEPS} steps x "
          f"{batch} rows" + (f" on the first {args.hot_rows} rows" if args.hot_rows else "")
          + f"; torch threads {args.threads}; best of {args.runs}; {huge_pages()}")
    table = [("sparsity step (default budget" + (", streamed)" if ours_default["streamed"] else ")"), ours_default),
             (f"sparsity step --memory-limit {args.limit}" + (" (streamed)" if ours_streamed["streamed"] else ""),
              ours_streamed),
             *([("previous build, same command", previous)] if previous else []),
             ("h5py + torch script (import excluded)", theirs),
             ("dd bs=4M of the state file (read + written)", floor)]
    print_run_table(table)
    print_rounds(best)
    print(f"whole command vs h5py + torch: {theirs['wall'] / ours_default['wall']:.2f}x faster; "
          f"under {args.limit} {theirs['wall'] / ours_streamed['wall']:.2f}x")
    print(f"whole command vs dd: {ours_default['wall'] / floor['wall']:.2f}x dd's time; "
          f"under {args.limit} {ours_streamed['wall'] / floor['wall']:.2f}x; medians "
          f"{ours_default['median_wall'] / floor['median_wall']:.2f}x, under {args.limit} "
          f"{ours_streamed['median_wall'] / floor['median_wall']:.2f}x")
    print(f"compute_seconds vs torch's 5 steps: {theirs['compute'] / ours_default['compute']:.1f}x (goal >= 10x); "
          f"under {args.limit} {theirs['compute'] / ours_streamed['compute']:.1f}x")
    print(f"peak memory: default {ours_default['peak'] / 2**20:.0f} MiB under a budget of "
          f"{ours_default['limit'] / 2**20:.0f} MiB; under {args.limit} {ours_streamed['peak'] / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
