#!/usr/bin/python3
"""Every subcommand on a dataset four times larger than the memory the process may use:

    larger_than_memory_cases.py SPARSITY WORKDIR

Each command runs in a cgroup (v1 memory controller, or v2) capped at 48 MiB, without swap,
on a 192 MiB float32 dataset, with the default budget (auto: half of the cap). It must exit 0
(not be killed), report a peak resident memory within the budget and 64 MiB, and write the
file it writes uncapped, value for value: inspect --count; sparsify with each method to dense,
and to csr, coo, row_sparse, masked and csc, and of a csr and a coo input of the same shape,
0.5% filled, of a coo that stores more than the cap (8% filled, rows ascending), of a
masked_tensor of dense data and mask, and of a masked_tensor of that coo and a coo mask of its
entries; convert
to dense, csr, coo and row_sparse, that coo to dense, csr and coo, that masked_tensor to dense,
the masked coo to csr, and a coo with its
entries shuffled to csr and dense (in bands of rows) and to coo (a copy of its entries), a coo
of random entries that stores 192 MiB to csr, and sparsified (spilled sorted by row to TMPDIR
first, then read in bands), and a
csc to csr and dense (in bands of rows) and to csc (a panel of columns at a time); sparsify and eval (a reduction) of that csc and that shuffled coo (in bands too); step (dense Adam, with a dense and
with a coo gradient; lazy Adagrad with a coo gradient, resumed, and with that 192 MiB coo as
its gradient, read a block of rows at a time from its spill); eval (elementwise, and a
reduction); run (a batch that sparsifies and steps). csc reads the input once per column
panel, a panel being half the budget of output: its case keeps 1% of the values (one panel),
and convert to csc (every value kept: 30 panels, 30 reads of 192 MiB) is tested at a small
size in memory_limit_cases.py. Not here: gradcheck, whose Jacobian of a 192 MiB input could
not be held by any machine (refused under a budget it does not fit, tested in
memory_limit_cases.py).

Needs root, a writable memory cgroup and DISK_NEEDED free in WORKDIR (the input, 0.8 GiB, and
the largest pair of outputs compared, convert's coo of /x: 50M entries, 1 GiB each); exits 77
(skipped) otherwise, saying which. WORKDIR is emptied when the cases pass."""
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

MIB = 1 << 20
GIB = 1 << 30
CAP = 48 * MIB
DISK_NEEDED = 3 * GIB
SKIP = 77


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)


def make_cgroup():
    """A fresh memory cgroup capped at CAP without swap: its folder, or None when there is none
    to make (cgroup v1's memory controller, or v2's unified tree)."""
    name = f"sparsity-test-{os.getpid()}"
    # (hierarchy, what shows it is there, the limit file, the swap file)
    for root, marker, limit, swap in (("/sys/fs/cgroup/memory", "", "memory.limit_in_bytes", "memory.swappiness"),
                                      ("/sys/fs/cgroup", "cgroup.controllers", "memory.max", "memory.swap.max")):
        if not os.path.exists(os.path.join(root, marker)):
            continue
        path = os.path.join(root, name)
        try:
            os.mkdir(path)
            with open(os.path.join(path, limit), "w") as f:
                f.write(str(CAP))
            if os.path.exists(os.path.join(path, swap)):
                with open(os.path.join(path, swap), "w") as f:
                    f.write("0")
        except OSError:
            return None
        return path
    return None


def main(cli, work):
    if os.geteuid() != 0:
        print("skipped: needs root to make a memory cgroup")
        sys.exit(SKIP)
    os.makedirs(work, exist_ok=True)
    free = shutil.disk_usage(work).free
    if free < DISK_NEEDED:
        # The commands would refuse, rightly, with "disk full?": the machine lacks room, the
        # product is not wrong. Said, not failed.
        print(f"skipped: needs {DISK_NEEDED / GIB:.1f} GiB free in {work}, has {free / GIB:.1f} GiB")
        sys.exit(SKIP)
    cgroup = make_cgroup()
    if cgroup is None:
        print("skipped: no writable memory cgroup")
        sys.exit(SKIP)
    try:
        run_cases(cli, work, cgroup)
    finally:
        os.rmdir(cgroup)
    # Passed: its 0.8 GiB input is not left for the tests after it to run out of disk beside.
    shutil.rmtree(work)


def run_cases(cli, work, cgroup):
    data = os.path.join(work, "big.h5")
    rng = np.random.default_rng(3)
    rows, width = 6144, 8192  # 192 MiB of float32: four times the cap
    with h5py.File(data, "w") as f:
        f.create_dataset("x", (rows, width), dtype="float32")
        f.create_dataset("g", (rows, width), dtype="float32")
        for first in range(0, rows, 512):  # written in slabs: this script stays small too
            f["x"][first:first + 512] = rng.standard_normal((512, width), dtype=np.float32)
            f["g"][first:first + 512] = rng.standard_normal((512, width), dtype=np.float32)
        coo = f.create_group("g_coo")
        coo.attrs["encoding-type"], coo.attrs["encoding-version"] = "coo_tensor", "0.1.0"
        coo.attrs["shape"] = np.array([rows, width], dtype=np.int64)
        picked = rng.choice(rows, 200, replace=False)  # 6 MiB: a lazy step's gradients are held whole
        coo["indices"] = picked[None, :].astype(np.int64)
        coo["values"] = rng.standard_normal((200, width), dtype=np.float32)
        # The same shape 0.5% filled (41 values a row), as csr and as coo (entries shuffled):
        # their dense form is four times the cap, what they store (5 MiB, 10 with the coo's
        # coalesced copy) fits the budget.
        per_row = 41
        columns = np.sort(np.stack([rng.choice(width, per_row, replace=False) for _ in range(rows)]), axis=1)
        values = rng.standard_normal((rows, per_row), dtype=np.float32)
        csr = f.create_group("x_csr")
        csr.attrs["encoding-type"], csr.attrs["encoding-version"] = "csr_matrix", "0.1.0"
        csr.attrs["shape"] = np.array([rows, width], dtype=np.int64)
        csr["data"], csr["indices"] = values.ravel(), columns.ravel().astype(np.int64)
        csr["indptr"] = (np.arange(rows + 1) * per_row).astype(np.int64)
        order = rng.permutation(rows * per_row)
        sparse = f.create_group("x_coo")
        sparse.attrs["encoding-type"], sparse.attrs["encoding-version"] = "coo_tensor", "0.1.0"
        sparse.attrs["shape"] = np.array([rows, width], dtype=np.int64)
        sparse["indices"] = np.stack([np.repeat(np.arange(rows), per_row)[order], columns.ravel()[order]]).astype(np.int64)
        sparse["values"] = values.ravel()[order]
        # 8% filled, its entries' rows ascending (columns shuffled within each row): it stores
        # 80 MiB, more than the cap, and is read a block of rows at a time.
        per_row = 656
        by_rows = f.create_group("x_coo_rows")
        by_rows.attrs["encoding-type"], by_rows.attrs["encoding-version"] = "coo_tensor", "0.1.0"
        by_rows.attrs["shape"] = np.array([rows, width], dtype=np.int64)
        indices = by_rows.create_dataset("indices", (2, rows * per_row), dtype="int64")
        stored = by_rows.create_dataset("values", (rows * per_row,), dtype="float32")
        for first in range(0, rows, 512):
            entries = slice(first * per_row, (first + 512) * per_row)
            indices[0, entries] = np.repeat(np.arange(first, first + 512), per_row)
            indices[1, entries] = rng.random((512, width)).argpartition(per_row, axis=1)[:, :per_row].ravel()
            stored[entries] = rng.standard_normal(512 * per_row, dtype=np.float32)
        # 2.5% filled, its entries shuffled (rows going back): it stores 29 MiB, its whole
        # conversion would hold four times that; converted in bands of rows, each a scan of it.
        per_row = 244
        order = rng.permutation(rows * per_row)
        shuffled = f.create_group("x_coo_shuffled")
        shuffled.attrs["encoding-type"], shuffled.attrs["encoding-version"] = "coo_tensor", "0.1.0"
        shuffled.attrs["shape"] = np.array([rows, width], dtype=np.int64)
        picked = np.stack([rng.choice(width, per_row, replace=False) for _ in range(rows)]).ravel()
        shuffled["indices"] = np.stack([np.repeat(np.arange(rows), per_row)[order], picked[order]]).astype(np.int64)
        shuffled["values"] = rng.standard_normal(rows * per_row, dtype=np.float32)
        del order, picked
        # A csc, 3% filled, each column's rows in random order (repaired, I7): it stores 18 MiB,
        # its whole conversion would hold three times that; converted in bands of rows, each a
        # scan of every column.
        per_column = 183
        csc = f.create_group("x_csc")
        csc.attrs["encoding-type"], csc.attrs["encoding-version"] = "csc_matrix", "0.1.0"
        csc.attrs["shape"] = np.array([rows, width], dtype=np.int64)
        csc_rows = csc.create_dataset("indices", (width * per_column,), dtype="int64")
        csc_values = csc.create_dataset("data", (width * per_column,), dtype="float32")
        for first in range(0, width, 1024):
            entries = slice(first * per_column, (first + 1024) * per_column)
            csc_rows[entries] = np.concatenate([rng.choice(rows, per_column, replace=False) for _ in range(1024)])
            csc_values[entries] = rng.standard_normal(1024 * per_column, dtype=np.float32)
        csc["indptr"] = (np.arange(width + 1) * per_column).astype(np.int64)
        # A coo of 10,000,000 entries at random places (rows going back, some duplicated): it
        # stores 192 MiB, four times the cap. Its bands (of 12 MiB) are far more than two: it is
        # first sorted by row into a scratch file in TMPDIR, each band then one read of it.
        big = f.create_group("x_coo_big")
        big.attrs["encoding-type"], big.attrs["encoding-version"] = "coo_tensor", "0.1.0"
        big.attrs["shape"] = np.array([rows, width], dtype=np.int64)
        entries = 10_000_000
        big_indices = big.create_dataset("indices", (2, entries), dtype="int64")
        big_values = big.create_dataset("values", (entries,), dtype="float32")
        for first in range(0, entries, 1_000_000):
            part = slice(first, first + 1_000_000)
            big_indices[0, part] = rng.integers(0, rows, 1_000_000)
            big_indices[1, part] = rng.integers(0, width, 1_000_000)
            big_values[part] = rng.standard_normal(1_000_000, dtype=np.float32)
        # A masked_tensor of /x's values (a hard link) and a mask specifying about 60% of them:
        # its values and specified elements are read by rows.
        masked = f.create_group("x_masked")
        masked.attrs["encoding-type"], masked.attrs["encoding-version"] = "masked_tensor", "0.1.0"
        masked["data"] = f["x"]
        mask = masked.create_dataset("mask", (rows, width), dtype=bool)
        for first in range(0, rows, 512):
            mask[first:first + 512] = rng.random((512, width), dtype=np.float32) < 0.6
        # A masked_tensor of /x_coo_rows (hard links: 80 MiB, rows ascending) and a coo mask of
        # its entries specifying about 60% of them: data and mask read a block of rows at a time.
        masked_coo = f.create_group("x_masked_coo")
        masked_coo.attrs["encoding-type"], masked_coo.attrs["encoding-version"] = "masked_tensor", "0.1.0"
        masked_coo["data"] = f["x_coo_rows"]
        coo_mask = masked_coo.create_group("mask")
        coo_mask.attrs["encoding-type"], coo_mask.attrs["encoding-version"] = "coo_tensor", "0.1.0"
        coo_mask.attrs["shape"] = np.array([rows, width], dtype=np.int64)
        coo_mask["indices"] = f["x_coo_rows/indices"]
        coo_mask["values"] = rng.random(f["x_coo_rows/values"].shape[0], dtype=np.float32) < 0.6
    batch = os.path.join(work, "batch.json")
    with open(batch, "w") as f:
        json.dump({"version": 1, "inputs": [data], "datasets": ["/x"], "device": "cpu",
                   "sparsify": {"method": "n-m", "n": 2, "m": 4},
                   "step": {"optimizer": "sgd", "semantics": "dense", "lr": 0.1, "param": "/x", "grads": ["/g"]},
                   "output": {"layout": "dense", "path": os.path.join(work, "batch_out", "{stem}.h5")}}, f)

    out = lambda name: os.path.join(work, name)
    cases = [("inspect", ["inspect", data, "--count", "--json"], None)]
    for method in (["threshold", "--threshold", "0.5"], ["n-m"], ["row-norm", "--keep", "0.3"],
                   ["data-norm", "--sparsity-level", "0.5", "--block", "1x4"]):
        layouts = ["dense", "csr", "coo", "row_sparse", "masked"] if method[0] == "threshold" else ["dense"]
        if method[0] == "data-norm":
            layouts.append("csr")
        for layout in layouts:
            name = f"sparsify_{method[0]}_{layout}"
            cases.append((name, ["sparsify", data, "-o", "{out}", "--method", *method, "--dataset", "/x", "--layout",
                                 layout, "--json"], "{out}"))
    cases.append(("sparsify_threshold_csc", ["sparsify", data, "-o", "{out}", "--method", "threshold", "--threshold",
                                             "2.5", "--dataset", "/x", "--layout", "csc", "--json"], "{out}"))
    # A masked input, its specified elements read beside its values a block of rows at a time.
    cases.append(("sparsify_masked_input", ["sparsify", data, "-o", "{out}", "--method", "row-norm", "--keep", "0.3",
                                            "--dataset", "/x_masked", "--layout", "masked", "--json"], "{out}"))
    cases.append(("convert_masked_dense", ["convert", data, "{out}", "--layout", "dense", "--dataset", "/x_masked"], "{out}"))
    # A masked_tensor of coo data and mask whose rows ascend, storing more than the cap.
    cases.append(("convert_masked_coo_csr", ["convert", data, "{out}", "--layout", "csr", "--dataset", "/x_masked_coo"],
                  "{out}"))
    cases.append(("sparsify_masked_coo_input", ["sparsify", data, "-o", "{out}", "--method", "threshold", "--threshold",
                                                "1.0", "--dataset", "/x_masked_coo", "--layout", "masked", "--json"],
                  "{out}"))
    # Sparse inputs: a csr's rows densified a block at a time, a coo held coalesced.
    cases.append(("sparsify_csr_input", ["sparsify", data, "-o", "{out}", "--method", "n-m", "--dataset", "/x_csr",
                                         "--json"], "{out}"))
    cases.append(("sparsify_coo_input", ["sparsify", data, "-o", "{out}", "--method", "row-norm", "--keep", "0.3",
                                         "--dataset", "/x_coo", "--layout", "csr", "--json"], "{out}"))
    for layout in ("dense", "csr", "coo", "row_sparse"):
        cases.append((f"convert_{layout}", ["convert", data, "{out}", "--layout", layout, "--dataset", "/x"], "{out}"))
    # A coo larger than the cap, its rows ascending: read a block of rows at a time.
    for layout in ("dense", "csr", "coo"):
        cases.append((f"convert_coo_rows_{layout}", ["convert", data, "{out}", "--layout", layout, "--dataset",
                                                     "/x_coo_rows"], "{out}"))
    cases.append(("convert_csc_csr", ["convert", data, "{out}", "--layout", "csr", "--dataset", "/x_csc"], "{out}"))
    # Into dense, the csc and the shuffled coo are densified from bands of their rows (uncapped,
    # converted whole); into csc, the csc is canonicalized a panel of columns at a time.
    cases.append(("convert_csc_dense", ["convert", data, "{out}", "--layout", "dense", "--dataset", "/x_csc"], "{out}"))
    cases.append(("convert_coo_shuffled_dense", ["convert", data, "{out}", "--layout", "dense", "--dataset",
                                                 "/x_coo_shuffled"], "{out}"))
    cases.append(("convert_csc_csc", ["convert", data, "{out}", "--layout", "csc", "--dataset", "/x_csc"], "{out}"))
    # Into coo a coo is copied a run of entries at a time, its rows going back or not.
    cases.append(("convert_coo_shuffled_coo", ["convert", data, "{out}", "--layout", "coo", "--dataset",
                                               "/x_coo_shuffled"], "{out}"))
    cases.append(("convert_coo_shuffled_csr", ["convert", data, "{out}", "--layout", "csr", "--dataset",
                                               "/x_coo_shuffled"], "{out}"))
    # Sparsified, the csc and the shuffled coo are read in bands of rows as convert reads them, each
    # band held coalesced while its blocks are densified (held whole, either would take more than
    # the budget).
    cases.append(("convert_coo_big_csr", ["convert", data, "{out}", "--layout", "csr", "--dataset", "/x_coo_big"], "{out}"))
    cases.append(("sparsify_coo_big_input", ["sparsify", data, "-o", "{out}", "--method", "threshold", "--threshold", "1.0",
                                             "--dataset", "/x_coo_big", "--layout", "csr", "--json"], "{out}"))
    cases.append(("sparsify_csc_input", ["sparsify", data, "-o", "{out}", "--method", "threshold", "--threshold", "1.0",
                                         "--dataset", "/x_csc", "--layout", "csr", "--json"], "{out}"))
    cases.append(("sparsify_coo_shuffled_input", ["sparsify", data, "-o", "{out}", "--method", "row-norm", "--keep",
                                                  "0.3", "--dataset", "/x_coo_shuffled", "--layout", "coo", "--json"],
                  "{out}"))
    cases.append(("sparsify_coo_rows_input", ["sparsify", data, "-o", "{out}", "--method", "threshold", "--threshold",
                                              "1.0", "--dataset", "/x_coo_rows", "--layout", "csr", "--json"], "{out}"))
    cases += [
        ("step_dense", ["step", data, "-o", "{out}", "--optimizer", "adam", "--semantics", "dense", "--param", "/x",
                        "--grad", "/g", "--json"], "{out}"),
        ("step_dense_coo", ["step", data, "-o", "{out}", "--optimizer", "adam", "--semantics", "dense", "--param", "/x",
                            "--grad", "/g_coo", "--grad", "/g", "--json"], "{out}"),
        ("step_lazy", ["step", data, "-o", "{out}", "--optimizer", "adagrad", "--semantics", "lazy", "--param", "/x",
                       "--grad", "/g_coo", "--grad", "/g_coo", "--json"], "{out}"),
        # A coo gradient four times the cap, its rows going back: read a block of rows at a time
        # from the scratch file it is first sorted into by row (uncapped: read whole).
        ("step_lazy_coo_big", ["step", data, "-o", "{out}", "--optimizer", "adagrad", "--semantics", "lazy", "--param",
                               "/x", "--grad", "/x_coo_big", "--json"], "{out}"),
        ("eval_elementwise", ["eval", "--expr", "x * 2 - g", "--input", f"x={data}:/x", "--input", f"g={data}:/g",
                              "-o", "{out}", "--json"], "{out}"),
        ("eval_reduction", ["eval", "--expr", "sum(x * g, 1)", "--input", f"x={data}:/x", "--input", f"g={data}:/g",
                            "-o", "{out}", "--json"], "{out}"),
        # A csc and a coo whose rows go back, densified from bands of their rows.
        ("eval_csc_reduction", ["eval", "--expr", "sum(c * c, 1)", "--input", f"c={data}:/x_csc", "-o", "{out}",
                                "--json"], "{out}"),
        ("eval_coo_shuffled_reduction", ["eval", "--expr", "amax(o, 1)", "--input", f"o={data}:/x_coo_shuffled", "-o",
                                         "{out}", "--json"], "{out}"),
        ("run", ["run", batch, "--json"], None),
    ]
    for name, template, output in cases:
        capped, free = out(name + ".capped.h5"), out(name + ".free.h5")
        for target in (capped, free):
            if os.path.exists(target):
                os.remove(target)
        args = lambda target: [a.replace("{out}", target) for a in template]
        limited = subprocess.run(["sh", "-c", f'echo $$ > {cgroup}/cgroup.procs && exec "$@"', "sh", cli, *args(capped)],
                                 capture_output=True, text=True)
        check(limited.returncode == 0, f"{name} under a {CAP // MIB} MiB cap: exit {limited.returncode} "
                                       f"(137: killed): {limited.stderr.strip()}")
        if "--json" in template:
            report = json.loads(limited.stdout)
            budget = report["memory_limit_bytes"]
            check(budget <= CAP // 2, f"{name}: auto budget {budget}")
            # Resident memory (shared libraries included) within the budget and 64 MiB.
            check(0 < report["peak_memory_bytes"] <= budget + 64 * MIB, f"{name}: peak {report['peak_memory_bytes']} bytes")
        if output is None:
            continue
        unlimited = subprocess.run([cli, *args(free)], capture_output=True, text=True)
        check(unlimited.returncode == 0, f"{name} uncapped: {unlimited.stderr}")
        same_values(capped, free, name)
        os.remove(capped)
        os.remove(free)
    print(f"ok: {len(cases)} commands on {rows * width * 4 // MIB} MiB under a {CAP // MIB} MiB cap")


def same_values(a, b, what):
    with h5py.File(a) as fa, h5py.File(b) as fb:
        names = []
        fa.visit(names.append)
        other = []
        fb.visit(other.append)
        check(names == other, f"{what}: {names} != {other}")
        for name in names:
            if not isinstance(fa[name], h5py.Dataset):
                continue
            da, db = fa[name], fb[name]
            check(da.dtype == db.dtype and da.shape == db.shape, f"{what}: {name} dtype or shape differs")
            if da.ndim == 0 or da.shape[0] == 0:
                check(da[()].tobytes() == db[()].tobytes(), f"{what}: {name} differs")
                continue
            step = max(1, (8 * MIB) // max(1, da.dtype.itemsize * int(np.prod(da.shape[1:]))))
            for first in range(0, da.shape[0], step):  # in slabs: this script stays small
                check(da[first:first + step].tobytes() == db[first:first + step].tobytes(),
                      f"{what}: {name} rows {first}.. differ")


if __name__ == "__main__":
    main(*sys.argv[1:3])
