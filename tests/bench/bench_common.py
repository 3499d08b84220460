"""Helpers shared by the benchmark scripts: best-of-N timing, running our C++ timing drivers
(each prints one JSON object), and writing the inputs both sides read."""
import argparse
import json
import os
import subprocess
import time

import numpy as np


def write_coo(group, name, rows, values, shape):
    """A row-wise coo_tensor (one sparse dim: `rows`, dense rows `values`), as a gradient."""
    g = group.create_group(name)
    g.attrs["encoding-type"] = "coo_tensor"
    g.attrs["encoding-version"] = "0.1.0"
    g.attrs["shape"] = np.array(shape, dtype=np.int64)
    g["indices"] = rows[None, :].astype(np.int64)
    g["values"] = values


def best_of(runs, f):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


def ours(binary, *args):
    out = subprocess.run([binary, *map(str, args)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def bench_setup(runs=5):
    """The arguments every benchmark takes (BENCH_BINARY WORKDIR [--runs N]); makes WORKDIR
    and gives torch every core, as our drivers get them."""
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--cli", help="the sparsity command, for benchmarks whose headline is it")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    import torch   # only the benchmarks that need it pay for the import
    torch.set_num_threads(os.cpu_count())
    return args
