#!/usr/bin/python3
"""The whole `sparsity sparsify` command (issue 13): what a user runs, against the script a
user would write instead and against the floor of moving the same bytes, in one run.

    bench_sparsify_command.py SPARSITY BENCH_SPARSIFY WORKDIR [--runs N] [--size N] [--threads N]
                              [--previous OLD_SPARSITY]

Workload: threshold 0.5 on one SIZE x SIZE float32 dataset (default 8192: 256 MiB), file to file.
  ours           `sparsity sparsify big.h5 -o out.h5 --method threshold --threshold 0.5 --json`
                 (default budget), and again under --memory-limit 64M (streamed in blocks)
  h5py + torch   read with h5py, `x * (x.abs() >= t)`, write with h5py; torch.set_num_threads(THREADS)
  dd             `dd if=big.h5 of=copy bs=4M`: the same bytes read and written through user space
  previous       optionally, the same command from another build (e.g. before a change)
Columns: wall seconds of the whole run (process start to exit for ours and dd; open to close
for the script, its `import torch` excluded), compute seconds (ours: compute_seconds of the
report; torch: the op), peak resident memory (ours: its VmHWM; the script: its own rusage,
torch's ~250 MiB included; a build without the report field: its rusage). Kernel-only figures (ours: bench_sparsify's
in-memory mask + squash; torch: the op on a tensor in memory; and ours with the report, bench_sparsify's threshold-report:
what the command computes) are the second table. Best of
N runs taken in rounds (each round runs every side once: interleaved_best_runs), with the
medians' ratio to dd's printed too; the file is in the page cache for every run after the
first (all sides alike). The outputs must hold the same values."""
import argparse
import json
import os
import subprocess
import sys
import time

import h5py
import numpy as np

from bench_common import dd_wall, huge_pages, interleaved_best_runs, print_rounds, timed

# SRC DST THRESHOLD THREADS [GZIP]: GZIP "1" writes with gzip level 4 and shuffle
# (bench_gzip_command.py).
TORCH_SCRIPT = r"""
import json, resource, sys, time
import h5py, torch
src, dst, t, threads = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
gzip = len(sys.argv) > 5 and sys.argv[5] == "1"
torch.set_num_threads(threads)
start = time.perf_counter()
with h5py.File(src, "r") as f:
    x = torch.from_numpy(f["x"][()])
op = time.perf_counter()
y = x * (x.abs() >= t)
op = time.perf_counter() - op
with h5py.File(dst, "w") as f:
    if gzip:
        f.create_dataset("x", data=y.numpy(), compression="gzip", compression_opts=4, shuffle=True)
    else:
        f["x"] = y.numpy()
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "op": op, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sparsity")
    parser.add_argument("bench_sparsify")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--previous", help="another build's sparsity, timed the same way")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    src = os.path.join(args.workdir, "big.h5")
    n, t = args.size, 0.5
    x = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    with h5py.File(src, "w") as f:
        f["x"] = x
    del x  # children's rusage starts from a fork of this process: keep it small
    out = lambda name: os.path.join(args.workdir, name)

    def sparsity(*extra, binary=None):
        def once():
            if os.path.exists(out("ours.h5")):
                os.remove(out("ours.h5"))
            wall, stdout, peak = timed([binary or args.sparsity, "sparsify", src, "-o", out("ours.h5"), "--method", "threshold",
                                  "--threshold", str(t), "--json", *extra])
            r = json.loads(stdout)
            # Its own VmHWM; a build without it: the child's rusage (which counts the fork of this script).
            return {"wall": wall, "compute": r["compute_seconds"], "peak": r.get("peak_memory_bytes", peak),
                    "limit": r.get("memory_limit_bytes"), "streamed": r["datasets"][0]["streamed"]}
        return once

    def torch_script():
        if os.path.exists(out("torch.h5")):
            os.remove(out("torch.h5"))
        _, stdout, _ = timed([sys.executable, "-c", TORCH_SCRIPT, src, out("torch.h5"), str(t), str(args.threads)])
        r = json.loads(stdout)
        return {"wall": r["wall"], "compute": r["op"], "peak": r["peak"]}

    def dd():
        # No peak: its rusage would count this script's fork.
        return {"wall": dd_wall(src, out("dd.bin")), "compute": None, "peak": None}

    # The previous build first: the outputs compared below are this build's.
    variants = {"previous": sparsity(binary=args.previous)} if args.previous else {}
    variants |= {"default": sparsity(), "streamed": sparsity("--memory-limit", "64M"), "torch": torch_script, "dd": dd}
    best = interleaved_best_runs(args.runs, variants)
    ours_default, ours_streamed, theirs, floor = best["default"], best["streamed"], best["torch"], best["dd"]
    previous = best.get("previous")
    with h5py.File(out("ours.h5")) as f:
        ours_values = f["x"][()]
    with h5py.File(out("torch.h5")) as f:
        assert np.array_equal(f["x"][()], ours_values), "ours and torch differ"

    # Kernel only: the op on a tensor in memory, both sides.
    import torch
    torch.set_num_threads(args.threads)
    with h5py.File(src) as f:
        tx = torch.from_numpy(f["x"][()])
    kernel_torch = float("inf")
    for _ in range(args.runs):
        start = time.perf_counter()
        tx * (tx.abs() >= t)
        kernel_torch = min(kernel_torch, time.perf_counter() - start)
    kernel = lambda mode: json.loads(subprocess.run([args.bench_sparsify, mode, src, "/x", str(t), str(args.runs)],
                                                    check=True, capture_output=True, text=True).stdout)["seconds"]
    kernel_ours, kernel_report = kernel("threshold"), kernel("threshold-report")

    mib = lambda b: "-" if b is None else f"{b / 2**20:8.0f}"
    sec = lambda s: "-" if s is None else f"{s:8.3f}"
    print(f"threshold {t}, {n} x {n} float32 ({n * n * 4 / 2**20:.0f} MiB) file to file; torch threads "
          f"{args.threads}; best of {args.runs}; {huge_pages()}")
    print(f"{'run':44} {'wall s':>8} {'compute s':>9} {'peak MiB':>8}")
    rows = [("sparsity sparsify (default budget, " + ("streamed" if ours_default["streamed"] else "one block read") + ")",
             ours_default),
            ("sparsity sparsify --memory-limit 64M (streamed)", ours_streamed),
            *([("previous build, same command", previous)] if previous else []),
            ("h5py + torch script (import excluded)", theirs),
            ("dd bs=4M, same bytes read + written", floor)]
    for name, r in rows:
        print(f"{name:44} {sec(r['wall']):>8} {sec(r['compute']):>9} {mib(r['peak']):>8}")
    print_rounds(best)
    print(f"whole command vs h5py + torch: {theirs['wall'] / ours_default['wall']:.2f}x faster (goal >= 3x); "
          f"streamed {theirs['wall'] / ours_streamed['wall']:.2f}x")
    print(f"whole command vs dd: {ours_default['wall'] / floor['wall']:.2f}x dd's time (goal <= 2x); "
          f"streamed {ours_streamed['wall'] / floor['wall']:.2f}x; medians "
          f"{ours_default['median_wall'] / floor['median_wall']:.2f}x, streamed {ours_streamed['median_wall'] / floor['median_wall']:.2f}x")
    print(f"compute_seconds vs torch's op: {theirs['compute'] / ours_default['compute']:.1f}x (goal >= 10x); "
          f"streamed {theirs['compute'] / ours_streamed['compute']:.1f}x")
    print(f"peak memory: default {ours_default['peak'] / 2**20:.0f} MiB under a budget of "
          f"{ours_default['limit'] / 2**20:.0f} MiB; streamed {ours_streamed['peak'] / 2**20:.0f} MiB under 64 MiB")
    print(f"kernel only (second column): ours {kernel_ours:.4f} s (mask + squash in memory), torch op {kernel_torch:.4f} s, "
          f"{kernel_torch / kernel_ours:.1f}x; with the report (range pass, then mask, squash in place, counts and "
          f"histograms in one pass) {kernel_report:.4f} s, {kernel_torch / kernel_report:.1f}x")


if __name__ == "__main__":
    main()
