#!/usr/bin/python3
"""Datasets compressed by HDF5 filter plugins (docs/HDF5_ENCODINGS.md, "Compression"):

    filter_plugins_cases.py SPARSITY WORKDIR

* a table compressed with each plugin filter `sparsity` loads here (blosc and lz4, whose
  plugins link the shared libhdf5 while `sparsity` links HDF5 statically, and bzip2) reads as
  the same table stored plainly: `inspect --count`, `convert` to csr and `sparsify` threshold
  (by default and streamed under a 64K budget) write the plain table's outputs, array for array;
* with the plugins out of reach (HDF5_PLUGIN_PATH an empty folder) `convert` and
  `inspect --count` refuse each such file (lzf's too) with exit 3 and one line naming the file,
  the dataset, the filter's id and name, and its plugin, and no output is left; the plain
  table still converts.

Skipped (77), saying so, where `sparsity` loads no plugin filter (scripts/install-deps.sh
--test installs them)."""
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

from memory_limit_cases import check, run

# id, name, h5py's compression_opts for it
PLUGINS = [(32001, "blosc", (0, 0, 0, 0, 5, 1, 1)), (32004, "lz4", (0,)), (307, "bzip2", (9,)), (32000, "lzf", None)]


def arrays(path):
    """Every dataset of the file, by path, as numpy arrays."""
    found = {}
    with h5py.File(path) as f:
        f.visititems(lambda name, obj: found.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
    return found


def same_files(a, b):
    left, right = arrays(a), arrays(b)
    check(sorted(left) == sorted(right), f"{a} and {b} hold different datasets: {sorted(left)} {sorted(right)}")
    for name, values in left.items():
        check(values.dtype == right[name].dtype and np.array_equal(values, right[name]), f"{a}:{name} differs from {b}")


def main(cli, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    def out(name):
        return os.path.join(work, name)

    # 90% zeros: lzf is optional in h5py's files, and a chunk it cannot shrink is stored raw.
    rng = np.random.default_rng(5)
    table = rng.standard_normal((400, 48)).astype(np.float32)
    table[rng.random(table.shape) < 0.9] = 0.0
    with h5py.File(out("plain.h5"), "w") as f:
        f["x"] = table
    written = [p for p in PLUGINS if h5py.h5z.filter_avail(p[0])]  # h5py registers lzf itself
    for filter_id, name, opts in written:
        with h5py.File(out(f"{name}.h5"), "w") as f:
            f.create_dataset("x", data=table, chunks=(50, 48), compression="lzf" if name == "lzf" else filter_id,
                             compression_opts=opts)

    # The filters `sparsity` loads here: each file is counted, or refused as below (Debian 12's
    # hdf5-plugin-lzf loads but reads no chunk of h5py's lzf, h5dump's reads neither).
    readable = [name for _, name, _ in written
                if subprocess.run([cli, "inspect", out(f"{name}.h5"), "--count"], capture_output=True).returncode == 0]
    if not readable:
        print("skipped: no HDF5 filter plugin is installed (scripts/install-deps.sh --test installs them)")
        sys.exit(77)

    # Each compressed dataset reads as the plain one.
    def nnz(path):
        return json.loads(run(cli, "inspect", path, "--count", "--json").stdout)["datasets"][0]["nnz"]

    for name in ["plain", *readable]:
        check(nnz(out(f"{name}.h5")) == nnz(out("plain.h5")), f"{name}.h5's count differs from plain.h5's")
        run(cli, "convert", out(f"{name}.h5"), out(f"csr_{name}.h5"), "--layout", "csr")
        for budget in ([], ["--memory-limit", "64K"]):
            tag = "streamed" if budget else "default"
            run(cli, "sparsify", out(f"{name}.h5"), "-o", out(f"thr_{tag}_{name}.h5"), "--method", "threshold",
                "--threshold", "0.5", *budget)
    for name in readable:
        same_files(out("csr_plain.h5"), out(f"csr_{name}.h5"))
        for tag in ("default", "streamed"):
            same_files(out(f"thr_{tag}_plain.h5"), out(f"thr_{tag}_{name}.h5"))

    # Out of reach, each plugin's dataset is refused, naming it; the plain one still reads.
    empty = out("no_plugins")
    os.makedirs(empty)
    env = {"HDF5_PLUGIN_PATH": empty}
    for filter_id, name, _ in written:
        source, target = out(f"{name}.h5"), out(f"refused_{name}.h5")
        for args in (["convert", source, target, "--layout", "csr"], ["inspect", source, "--count"]):
            r = run(cli, *args, code=3, env=env)
            line = r.stderr.strip()
            check(len(line.splitlines()) == 1 and line.startswith(f"error: {source}:/x: cannot read values: "),
                  f"{args[0]} of {name}.h5: {r.stderr}")
            check(f"HDF5 filter {filter_id} (" in line and "plugin" in line and "HDF5_PLUGIN_PATH" in line,
                  f"{args[0]}'s refusal of {name}.h5 names no filter or plugin: {line}")
        check(not any(f.startswith(f"refused_{name}.h5") for f in os.listdir(work)),
              f"a refused convert of {name}.h5 left a file: {os.listdir(work)}")
    run(cli, "convert", out("plain.h5"), out("plain_alone.h5"), "--layout", "csr", env=env)
    same_files(out("csr_plain.h5"), out("plain_alone.h5"))
    print(f"datasets compressed by {', '.join(readable)}: ok")


if __name__ == "__main__":
    main(*sys.argv[1:3])
