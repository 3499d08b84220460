#!/usr/bin/python3
"""Compressed data through the whole `sparsity sparsify` command (issue 13): a gzip output and a
gzip input, against the script a user would write instead and against the floor of moving the
same bytes, in one run.

    bench_gzip_command.py SPARSITY WORKDIR [--runs N] [--size N] [--threads N] [--previous OLD_SPARSITY]

Workloads, threshold 0.5 on one SIZE x SIZE float32 dataset (default 4096: 64 MiB):
  gzip output    `sparsity sparsify plain.h5 -o out.h5 --method threshold --threshold 0.5 --gzip 4`
                 against h5py + torch writing the result with compression="gzip",
                 compression_opts=4, shuffle=True (the same filters; HDF5 runs them on one thread)
  gzip input     the same command on gz.h5, the same values in chunks of 64 rows, gzip level 4
                 and shuffle (h5py), into a plain output; against h5py + torch reading it
  dd             `dd bs=4M` of the plain file: moving the bytes without compressing them
  previous       optionally, the same commands from another build (e.g. before a change)
Columns: wall seconds of the whole run (process start to exit for ours and dd; open to close for
the script, its `import torch` excluded), compute seconds (ours: compute_seconds; torch: the op),
peak resident memory (ours: its VmHWM; the script: its own rusage). Best of N runs taken in
rounds (interleaved_best_runs), each side's walls printed; every output must hold the same
values as the uncompressed run's."""
import json
import os
import sys

import h5py
import numpy as np

from bench_common import command_bench_parser, dd_wall, huge_pages, interleaved_best_runs, print_rounds, print_run_table, timed
from bench_sparsify_command import TORCH_SCRIPT


def main():
    parser = command_bench_parser()
    parser.add_argument("--size", type=int, default=4096)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    out = lambda name: os.path.join(args.workdir, name)
    n, t = args.size, 0.5
    x = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
    with h5py.File(out("plain.h5"), "w") as f:
        f["x"] = x
    with h5py.File(out("gz.h5"), "w") as f:
        f.create_dataset("x", data=x, chunks=(min(64, n), n), compression="gzip", compression_opts=4, shuffle=True)
    expected = x * (np.abs(x) >= t)
    del x

    def sparsity(src, dst, *extra, binary=None):
        def once():
            if os.path.exists(out(dst)):
                os.remove(out(dst))
            wall, stdout, peak = timed([binary or args.sparsity, "sparsify", out(src), "-o", out(dst), "--method", "threshold",
                                        "--threshold", str(t), "--json", *extra])
            r = json.loads(stdout)
            return {"wall": wall, "compute": r["compute_seconds"], "peak": r.get("peak_memory_bytes", peak)}
        return once

    def torch_script(src, dst, gzip):
        def once():
            if os.path.exists(out(dst)):
                os.remove(out(dst))
            _, stdout, _ = timed([sys.executable, "-c", TORCH_SCRIPT, out(src), out(dst), str(t), str(args.threads),
                                  "1" if gzip else "0"])
            r = json.loads(stdout)
            return {"wall": r["wall"], "compute": r["op"], "peak": r["peak"]}
        return once

    def dd():
        return {"wall": dd_wall(out("plain.h5"), out("dd.bin")), "compute": None, "peak": None}

    # The previous build first: the outputs checked below are this build's.
    variants = {}
    if args.previous:
        variants["previous, gzip output"] = sparsity("plain.h5", "ours_gz.h5", "--gzip", "4", binary=args.previous)
        variants["previous, gzip input"] = sparsity("gz.h5", "ours_in.h5", binary=args.previous)
    variants |= {
        "ours, gzip output": sparsity("plain.h5", "ours_gz.h5", "--gzip", "4"),
        "torch, gzip output": torch_script("plain.h5", "torch_gz.h5", True),
        "ours, gzip input": sparsity("gz.h5", "ours_in.h5"),
        "torch, gzip input": torch_script("gz.h5", "torch_in.h5", False),
        "dd": dd,
    }
    best = interleaved_best_runs(args.runs, variants)
    for name in ("ours_gz.h5", "torch_gz.h5", "ours_in.h5", "torch_in.h5"):
        with h5py.File(out(name)) as f:
            assert np.array_equal(f["x"][()], expected), f"{name}: not the threshold's values"
    with h5py.File(out("ours_gz.h5")) as f:
        d = f["x"]
        assert d.compression == "gzip" and d.compression_opts == 4 and d.shuffle, "ours_gz.h5: not gzip 4 + shuffle"
    plain_mib = n * n * 4 / 2**20
    print(f"threshold {t}, {n} x {n} float32 ({plain_mib:.0f} MiB); gzip level 4 + shuffle; torch threads "
          f"{args.threads}; best of {args.runs}; {huge_pages()}")
    labels = {"ours, gzip output": "sparsity sparsify --gzip 4 (plain input)",
              "ours, gzip input": "sparsity sparsify (gzip input, plain output)"}
    print_run_table([(labels.get(name, name), r) for name, r in best.items()])
    print_rounds(best)
    for side in ("output", "input"):
        ours, theirs = best[f"ours, gzip {side}"], best[f"torch, gzip {side}"]
        print(f"gzip {side}: whole command {theirs['wall'] / ours['wall']:.2f}x faster than h5py + torch; "
              f"{ours['wall'] / best['dd']['wall']:.1f}x dd's time for the plain bytes" +
              (f"; previous build {best[f'previous, gzip {side}']['wall'] / ours['wall']:.2f}x ours" if args.previous else ""))


if __name__ == "__main__":
    main()
