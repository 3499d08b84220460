#!/usr/bin/python3
"""The whole `sparsity eval` command over masked inputs (issue 13): what a user runs, against the
script a user would write instead and against the floor of moving the same bytes, in one run.

    bench_eval_masked_command.py SPARSITY WORKDIR [--runs N] [--rows N] [--threads N] [--previous OLD_SPARSITY]

Workload: two ROWS x 64 float32 masked_tensors `mx`, `my` (default 1,000,000 rows: 244 MiB of
data and 61 MiB of mask each, chunks of 4096 rows) sharing one mask with 70% specified;
expressions `x * y + x * 2` (a masked result, data and mask written) and `sum(x * y, 1)`
(a masked reduction over each row), file to file.
  ours           `sparsity eval --expr EXPR --input x=big.h5:/mx --input y=big.h5:/my -o out.h5
                 --json` (default budget), and again under --memory-limit 64M
  h5py + torch   read data and mask of both with h5py, torch.masked.masked_tensor, the op,
                 write the result's data and mask with h5py; torch.set_num_threads(THREADS)
  dd             `dd bs=4M` of the input file to a copy: the bytes read, and more than written
  previous       optionally, the same command from another build (e.g. before a change)
Columns: wall seconds (process start to exit for ours and dd; open to close for the script, its
imports excluded), compute seconds (ours: compute_seconds; torch: the op), peak resident memory.
Best of N runs, page cache warm on every side. The outputs must agree: data where specified to
float rounding, masks exactly."""
import json
import os
import subprocess
import sys

import h5py
import numpy as np

from bench_common import best_run, command_bench_parser, dd_wall, huge_pages, print_run_table, timed

WIDTH = 64
EXPRESSIONS = {"x * y + x * 2": "x * y + x * 2", "sum(x * y, 1)": "torch.sum(x * y, 1)"}

TORCH_SCRIPT = r"""
import json, resource, sys, time, warnings
warnings.filterwarnings("ignore")  # torch.masked is a prototype in 1.13
import h5py, torch
from torch.masked import masked_tensor
source, dst, expression, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
torch.set_num_threads(threads)
start = time.perf_counter()
with h5py.File(source, "r") as f:
    x = masked_tensor(torch.from_numpy(f["mx/data"][()]), torch.from_numpy(f["mx/mask"][()]))
    y = masked_tensor(torch.from_numpy(f["my/data"][()]), torch.from_numpy(f["my/mask"][()]))
op = time.perf_counter()
r = eval(expression)
op = time.perf_counter() - op
with h5py.File(dst, "w") as f:
    f["result/data"] = r.get_data().numpy()
    f["result/mask"] = r.get_mask().numpy()
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "op": op, "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def write_masked(f, name, data, mask):
    g = f.create_group(name)
    g.attrs["encoding-type"], g.attrs["encoding-version"] = "masked_tensor", "0.1.0"
    g.create_dataset("data", data=data, chunks=(4096, WIDTH))
    g.create_dataset("mask", data=mask, chunks=(4096, WIDTH))


def main():
    parser = command_bench_parser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    out = lambda name: os.path.join(args.workdir, name)
    rng = np.random.default_rng(0)
    mask = rng.random((args.rows, WIDTH)) < 0.7
    with h5py.File(out("big.h5"), "w") as f:
        for name in ("mx", "my"):
            write_masked(f, name, rng.standard_normal((args.rows, WIDTH), dtype=np.float32), mask)
    del mask

    def sparsity(expression, *extra, binary=None):
        def once():
            if os.path.exists(out("ours.h5")):
                os.remove(out("ours.h5"))
            wall, stdout, peak = timed([binary or args.sparsity, "eval", "--expr", expression, "--input",
                                        f"x={out('big.h5')}:/mx", "--input", f"y={out('big.h5')}:/my", "-o",
                                        out("ours.h5"), "--json", *extra])
            r = json.loads(stdout)
            return {"wall": wall, "compute": r["compute_seconds"], "peak": r.get("peak_memory_bytes", peak),
                    "limit": r.get("memory_limit_bytes"), "streamed": r["result"].get("streamed", False)}
        return once

    def torch_script(expression):
        def once():
            if os.path.exists(out("torch.h5")):
                os.remove(out("torch.h5"))
            _, stdout, _ = timed([sys.executable, "-c", TORCH_SCRIPT, out("big.h5"), out("torch.h5"), expression,
                                  str(args.threads)])
            r = json.loads(stdout)
            return {"wall": r["wall"], "compute": r["op"], "peak": r["peak"]}
        return once

    def dd():
        return {"wall": dd_wall(out("big.h5"), out("dd.bin")), "compute": None, "peak": None}

    floor = best_run(args.runs, dd)
    os.remove(out("dd.bin"))
    print(f"eval over two masked {args.rows} x {WIDTH} float32 tensors (70% specified); torch threads {args.threads}; "
          f"best of {args.runs}; {huge_pages()}")
    for expression, in_torch in EXPRESSIONS.items():
        previous = best_run(args.runs, sparsity(expression, binary=args.previous)) if args.previous else None
        ours_default = best_run(args.runs, sparsity(expression))
        ours_streamed = best_run(args.runs, sparsity(expression, "--memory-limit", "64M"))
        theirs = best_run(args.runs, torch_script(in_torch))
        with h5py.File(out("ours.h5")) as o, h5py.File(out("torch.h5")) as t:
            assert np.array_equal(o["result/mask"][()], t["result/mask"][()]), f"{expression}: masks differ"
            specified = o["result/mask"][()]
            assert np.allclose(o["result/data"][()][specified], t["result/data"][()][specified], rtol=1e-5, atol=1e-5), \
                f"{expression}: values differ"
        print(f"\n{expression}")
        table = [("sparsity eval (default budget" + (", streamed)" if ours_default["streamed"] else ")"), ours_default),
                 ("sparsity eval --memory-limit 64M" + (" (streamed)" if ours_streamed["streamed"] else ""), ours_streamed),
                 *([("previous build, same command", previous)] if previous else []),
                 ("h5py + torch.masked script (imports excluded)", theirs),
                 ("dd bs=4M of the input file (read + written)", floor)]
        print_run_table(table)
        print(f"whole command vs h5py + torch: {theirs['wall'] / ours_default['wall']:.2f}x faster; "
              f"vs dd: {ours_default['wall'] / floor['wall']:.2f}x dd's time; "
              f"compute vs torch's op: {theirs['compute'] / ours_default['compute']:.1f}x; "
              f"peak {ours_default['peak'] / 2**20:.0f} MiB under a budget of {ours_default['limit'] / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
