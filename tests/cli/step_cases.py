#!/usr/bin/python3
"""`sparsity step` end to end on the golden file (tests/reference/make_optim_golden.py):

    step_cases.py SPARSITY GOLDEN.h5 WORKDIR

* every golden case run through the CLI matches the reference (relative 2e-6);
* resuming with --state-from after each step equals running all steps at once, exactly;
* --json reports compute_seconds and io_seconds, and --compare reports divergence;
* the step writes and reports the same, byte for byte, however the parameter is stored and
  however many blocks of rows it takes: a dense parameter under the default budget (the
  reference) and under a 1-byte one (one row per block), and the parameter stored as csr, as
  row_sparse and as a masked_tensor (read by rows) and as coo (read once), each densified a
  block at a time, for every golden case with every other semantics compared, plus float64
  and csr, int, coo and masked gradients, --state-from, and the first bad gradient named alike
  when bad values lie in different blocks. (That the streamed step equals the whole-tensor one
  in memory is tests/core/tst_step_streamed.cpp's.)"""
import json
import os
import subprocess
import sys

import h5py
import numpy as np

KEYS = ["lr", "eps", "weight_decay", "momentum", "beta1", "beta2", "lr_decay", "initial_accumulator_value",
        "clip_gradient", "rescale_grad", "dampening"]


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)


def args_for(options):
    out = ["--optimizer", options["optimizer"], "--semantics", options["semantics"], "--rule", options["rule"]]
    for key in KEYS:
        if key in options:
            out += ["--" + key.replace("_", "-"), repr(float(options[key]))]
    if options.get("nesterov"):
        out.append("--nesterov")
    return out


def close(a, b):
    return np.all(np.abs(a - b) <= 2e-6 * np.maximum(np.maximum(np.abs(a), np.abs(b)), 1e-6))


def tag(obj, encoding, version="0.1.0"):
    obj.attrs["encoding-type"] = encoding
    obj.attrs["encoding-version"] = version


def write_csr(group, name, dense):
    """`dense` as an anndata csr_matrix (every value stored: the parameters have no zeros)."""
    g = group.create_group(name)
    tag(g, "csr_matrix")
    g.attrs["shape"] = np.array(dense.shape, dtype=np.int64)
    rows, cols = np.nonzero(dense)
    g["data"] = dense[rows, cols]
    g["indices"] = cols.astype(np.int32)
    g["indptr"] = np.concatenate([[0], np.cumsum(np.count_nonzero(dense, axis=1))]).astype(np.int32)


def write_coo(group, name, dense):
    """`dense` as a coo_tensor of every value, entries in reverse order (a parameter read once)."""
    g = group.create_group(name)
    tag(g, "coo_tensor")
    g.attrs["shape"] = np.array(dense.shape, dtype=np.int64)
    nonzero = np.nonzero(dense)
    g["indices"] = np.stack(nonzero)[:, ::-1].astype(np.int64)
    g["values"] = dense[nonzero][::-1]


def write_masked(group, name, dense):
    """`dense` as a masked_tensor of dense data, every element specified."""
    g = group.create_group(name)
    tag(g, "masked_tensor")
    g["data"] = dense
    g["mask"] = np.ones(dense.shape, dtype=bool)


def write_row_sparse(group, name, dense):
    """`dense` as row_sparse, every row stored."""
    g = group.create_group(name)
    tag(g, "row_sparse")
    g.attrs["shape"] = np.array(dense.shape, dtype=np.int64)
    g["indices"] = np.arange(dense.shape[0], dtype=np.int64)
    g["data"] = dense


def write_param_layouts(group, dense):
    """The parameter in the layouts the step reads it from: csr, row_sparse and masked (read
    by rows) and coo (read once), each densified a block at a time."""
    write_csr(group, "param_csr", dense)
    write_coo(group, "param_coo", dense)
    write_masked(group, "param_masked", dense)
    write_row_sparse(group, "param_rsp", dense)


def same_outputs(a, b, what):
    with h5py.File(a) as fa, h5py.File(b) as fb:
        names_a, names_b = [], []
        fa.visit(names_a.append)
        fb.visit(names_b.append)
        check(names_a == names_b, f"{what}: {names_a} != {names_b}")
        for name in names_a:
            if isinstance(fa[name], h5py.Dataset):
                x, y = fa[name][()], fb[name][()]
                check(x.dtype == y.dtype and np.array_equal(x, y) and x.tobytes() == y.tobytes(),
                      f"{what}: {name} differs")
            check(dict(fa[name].attrs) == dict(fb[name].attrs), f"{what}: attributes of {name} differ")


def step_report(run):
    """What a run says, less its timings and memory (which differ between runs)."""
    if run.returncode != 0:
        return run.returncode, run.stderr
    report = json.loads(run.stdout)
    for key in ["output", "compute_seconds", "io_seconds", "device_init_seconds", "memory_limit_bytes",
                "peak_memory_bytes", "streamed"]:
        report.pop(key, None)
    return 0, report


def same_however_stored(cli, golden, work, cases):
    """Every golden case with the parameter stored in each layout and cut into blocks of one
    row (a few where gradients are held), against the dense parameter under the default
    budget, each other semantics compared."""
    source = os.path.join(work, "streaming.h5")
    with h5py.File(golden) as f, h5py.File(source, "w") as out:
        for name in f:
            f.copy(f[name], out, name)
            write_param_layouts(out[name], f[name + "/param"][()])
        rng = np.random.default_rng(11)
        extra = out.create_group("extra")
        p64 = rng.standard_normal((40, 6))
        extra["param"] = p64
        write_param_layouts(extra, p64)
        g = rng.standard_normal((40, 6))
        g[rng.random(g.shape) < 0.7] = 0
        g[5:9] = 0
        write_csr(extra, "grad_csr", g)
        extra["grad_dense32"] = rng.standard_normal((40, 6)).astype(np.float32)
        extra["grad_int"] = rng.integers(-3, 4, (40, 6)).astype(np.int32)
        extra["mask"] = rng.random((40, 6)) < 0.5
        bad = rng.standard_normal((2, 40, 6))
        bad[0, 37, 2] = np.nan  # a late block of the first gradient ...
        bad[1, 1, 4] = np.inf  # ... and an early block of the second: the first one is named
        extra["bad0"], extra["bad1"] = bad[0], bad[1]
        # Gradients read whole: coo by element (unsorted, with duplicates) and coo by row
        # (hybrid, duplicate rows), each taken a block at a time; and row_sparse and masked,
        # read by rows.
        g = extra.create_group("coo_elements")
        tag(g, "coo_tensor")
        g.attrs["shape"] = np.array([40, 6], dtype=np.int64)
        picks = rng.integers(0, 40 * 6, 50)
        picks = np.concatenate([picks, picks[:8]])
        g["indices"] = np.stack([picks // 6, picks % 6]).astype(np.int64)
        g["values"] = rng.standard_normal(picks.size)
        g = extra.create_group("coo_rows")
        tag(g, "coo_tensor")
        g.attrs["shape"] = np.array([40, 6], dtype=np.int64)
        rows = np.array([33, 2, 17, 2, 38, 9, 33])
        g["indices"] = rows[None, :].astype(np.int64)
        g["values"] = rng.standard_normal((rows.size, 6)).astype(np.float32)
        # A masked gradient of coo data (read whole), duplicates included.
        g = extra.create_group("masked_coo")
        tag(g, "masked_tensor")
        for part, values in [("data", rng.standard_normal(picks.size)), ("mask", rng.random(picks.size) < 0.7)]:
            h = g.create_group(part)
            tag(h, "coo_tensor")
            h.attrs["shape"] = np.array([40, 6], dtype=np.int64)
            h["indices"] = np.stack([picks // 6, picks % 6]).astype(np.int64)
            h["values"] = values
        # A coo gradient with two non-finite values: a late row stored first, an early one last.
        g = extra.create_group("coo_bad")
        tag(g, "coo_tensor")
        g.attrs["shape"] = np.array([40, 6], dtype=np.int64)
        g["indices"] = np.array([[36, 4, 20, 3], [1, 0, 5, 2]], dtype=np.int64)
        g["values"] = np.array([np.inf, 1.0, -2.0, np.nan])
        # A coo gradient with a row index past the parameter's rows among its entries: the same
        # error however it is read (whole, or by bands).
        g = extra.create_group("coo_oob")
        tag(g, "coo_tensor")
        g.attrs["shape"] = np.array([40, 6], dtype=np.int64)
        oob = np.stack([picks // 6, picks % 6]).astype(np.int64)
        oob[0, 23] = 40
        g["indices"] = oob
        g["values"] = rng.standard_normal(picks.size)
        # A csc gradient, its row indices unsorted in a column (read whole, or by bands).
        g = extra.create_group("grad_csc")
        tag(g, "csc_matrix")
        g.attrs["shape"] = np.array([40, 6], dtype=np.int64)
        g["indptr"] = np.array([0, 3, 3, 5, 9, 10, 12], dtype=np.int64)
        g["indices"] = np.array([38, 2, 17, 0, 39, 21, 4, 33, 8, 11, 30, 1], dtype=np.int64)
        g["data"] = rng.standard_normal(12)
        g = extra.create_group("rsp")
        tag(g, "row_sparse")
        g.attrs["shape"] = np.array([40, 6], dtype=np.int64)
        g["indices"] = np.array([0, 11, 12, 25, 39], dtype=np.int64)
        g["data"] = rng.standard_normal((5, 6)).astype(np.float32)
        g = extra.create_group("masked_grad")
        tag(g, "masked_tensor")
        g["data"] = rng.standard_normal((40, 6)).astype(np.float32)
        g["mask"] = rng.random((40, 6)) < 0.3
    extra_cases = {
        "extra_adam_lazy_csr": ({"optimizer": "adam", "semantics": "lazy", "rule": "mxnet"},
                                ["/extra/grad_csr", "/extra/grad_dense32", "/extra/grad_csr"], False),
        "extra_adagrad_dense_int": ({"optimizer": "adagrad", "semantics": "dense", "rule": "torch",
                                     "initial_accumulator_value": 0.1},
                                    ["/extra/grad_int", "/extra/grad_csr"], False),
        "extra_sgd_masked": ({"optimizer": "sgd", "semantics": "masked", "rule": "torch", "lr": 0.1,
                              "momentum": 0.9}, ["/extra/grad_dense32", "/extra/grad_csr"], True),
        "extra_sgd_lazy_momentum_csr": ({"optimizer": "sgd", "semantics": "lazy", "rule": "torch", "lr": 0.1,
                                         "momentum": 0.5}, ["/extra/grad_csr", "/extra/grad_csr"], False),
        "extra_bad_gradients": ({"optimizer": "adagrad", "semantics": "dense", "rule": "torch"},
                                ["/extra/bad0", "/extra/bad1"], False),
        "extra_adagrad_lazy_coo": ({"optimizer": "adagrad", "semantics": "lazy", "rule": "torch"},
                                   ["/extra/coo_elements", "/extra/coo_rows", "/extra/rsp", "/extra/grad_csc"], False),
        "extra_adam_masked_gradient": ({"optimizer": "adam", "semantics": "masked", "rule": "mxnet"},
                                       ["/extra/masked_grad", "/extra/grad_csr", "/extra/masked_grad"], False),
        # row_sparse is read by rows: even the dense semantics streams it.
        "extra_adagrad_dense_rsp": ({"optimizer": "adagrad", "semantics": "dense", "rule": "torch"},
                                    ["/extra/rsp", "/extra/grad_csr", "/extra/rsp"], False),
        "extra_adagrad_dense_masked_gradient": ({"optimizer": "adagrad", "semantics": "dense", "rule": "mxnet"},
                                                ["/extra/masked_grad", "/extra/grad_dense32"], False),
        # Gradients read whole under the semantics that fill every block from them: dense
        # (zeros where nothing is stored) and masked with --mask (the mask's elements).
        "extra_adam_dense_coo": ({"optimizer": "adam", "semantics": "dense", "rule": "torch"},
                                 ["/extra/coo_elements", "/extra/grad_csr", "/extra/coo_rows", "/extra/coo_elements"], False),
        "extra_sgd_dense_coo_momentum": ({"optimizer": "sgd", "semantics": "dense", "rule": "mxnet", "lr": 0.1,
                                          "momentum": 0.9}, ["/extra/coo_rows", "/extra/grad_csc", "/extra/coo_rows"], False),
        "extra_adagrad_masked_coo_mask": ({"optimizer": "adagrad", "semantics": "masked", "rule": "torch"},
                                          ["/extra/coo_elements", "/extra/grad_dense32", "/extra/coo_rows"], True),
        "extra_adam_dense_masked_coo": ({"optimizer": "adam", "semantics": "dense", "rule": "mxnet"},
                                        ["/extra/masked_coo", "/extra/coo_elements"], False),
        "extra_bad_coo_dense": ({"optimizer": "adagrad", "semantics": "dense", "rule": "torch"},
                                ["/extra/coo_rows", "/extra/coo_bad"], False),
        "extra_oob_coo_lazy": ({"optimizer": "adagrad", "semantics": "lazy", "rule": "torch"},
                               ["/extra/coo_rows", "/extra/coo_oob"], False),
        "extra_sgd_lazy_momentum_coo": ({"optimizer": "sgd", "semantics": "lazy", "rule": "torch", "lr": 0.1,
                                         "momentum": 0.9, "dampening": 0.2},
                                        ["/extra/coo_rows", "/extra/coo_elements", "/extra/grad_dense32"], False),
    }
    runs = {name: (options, [f"/{name}/grads/{k}" for k in range(steps)], has_mask, f"/{name}")
            for name, (options, steps, has_mask) in cases.items()}
    runs.update({name: (options, grads, has_mask, "/extra") for name, (options, grads, has_mask) in extra_cases.items()})
    compared = 0
    with h5py.File(source) as f:
        encodings = {path: f[path].attrs.get("encoding-type", "array") for _, grads, _, _ in runs.values() for path in grads}
        for path, encoding in encodings.items():
            if encoding == "masked_tensor" and isinstance(f[path + "/data"], h5py.Group):
                encodings[path] = "masked_sparse"
    # Read by rows: dense, csr, row_sparse, and masked_tensor of dense data and mask.
    read_whole = {path for path, encoding in encodings.items()
                  if encoding not in ("array", "csr_matrix", "row_sparse", "masked_tensor")}
    # What a streamed step holds beside its blocks: gradients read whole, row_sparse indices.
    held = read_whole | {path for path, encoding in encodings.items() if encoding == "row_sparse"}
    # Read by bands (a block's rows at a time) where, held whole, they would not fit: coo and csc.
    banded = {path for path, encoding in encodings.items() if encoding in ("coo_tensor", "csc_matrix")}
    for name, (options, grads, has_mask, base) in runs.items():
        others = [s for s in ["dense", "lazy", "masked"] if s != options["semantics"] and (has_mask or s != "masked")]
        common = sum([["--grad", g] for g in grads], []) + (["--mask", base + "/mask"] if has_mask else []) \
            + args_for(options) + sum([["--compare", s] for s in others], []) + ["--json"]
        outputs = {}
        # One row per block; what is held beside the blocks must fit the budget: a few rows then.
        budget = "8K" if any(g in held for g in grads) else "1"
        variants = [("default", ["--param", base + "/param"]),
                    ("rows", ["--param", base + "/param", "--memory-limit", budget]),
                    # A coo parameter read once holds its entries: several rows a block then.
                    ("coo", ["--param", base + "/param_coo", "--memory-limit", "16K"])]
        # Under 1K the coo and csc gradients (but the golden cases' smallest) are read
        # by bands, each block's rows of them from their spill, sorted by row; a masked one
        # would be refused.
        if read_whole.intersection(grads) and read_whole.intersection(grads) <= banded:
            variants.append(("bands", ["--param", base + "/param", "--memory-limit", "1K"]))
        # A row_sparse parameter's indices are held too, beside those gradients.
        budget_rsp = "4K" if budget == "1" else "12K"
        variants += [(f"rows of {layout}", ["--param", f"{base}/param_{layout}", "--memory-limit",
                                            budget_rsp if layout == "rsp" else budget])
                     for layout in ("csr", "masked", "rsp")]
        for variant, extra_args in variants:
            out = os.path.join(work, f"{name}.{variant}.h5")
            run = subprocess.run([cli, "step", source, "-o", out] + extra_args + common, capture_output=True, text=True)
            outputs[variant] = (out, step_report(run), run.stderr)
            if run.returncode == 0:
                check(json.loads(run.stdout)["streamed"], f"{name} {variant}: streamed?")
                # A bool --mask is what --mask takes: no "converted bool to float32" for it.
                check(not has_mask or "/mask: converted" not in run.stdout + run.stderr,
                      f"{name} {variant}: a conversion notice for the mask: {run.stdout}")
        ref_out, ref_report, ref_notes = outputs["default"]
        for variant, _ in variants[1:]:
            out, report, notes = outputs[variant]
            check(report == ref_report, f"{name} {variant}: {report} != default {ref_report}")
            # The parameter as stored by default: the notes too (another layout's add its own).
            check(variant not in ("rows", "bands") or notes == ref_notes, f"{name} {variant}: notes {notes!r} != {ref_notes!r}")
            if ref_report[0] == 0:
                same_outputs(out, ref_out, f"{name} {variant}")
            else:
                check(not os.path.exists(out), f"{name} {variant}: left {out} after failing")
        compared += 1
        if name == "extra_bad_gradients":
            code, message = ref_report
            check(code == 2 and "/extra/bad0: gradient must be finite, but element (37, 2) is nan at step 1" in message,
                  f"bad gradients: {ref_report}")
        if name == "extra_oob_coo_lazy":
            code, message = ref_report
            check(code == 2 and "/extra/coo_oob: COO C4: indices[0, k] must be in [0, 40), but indices[0, 23]=40" in message,
                  f"coo gradient out of range: {ref_report}")
        if name == "extra_bad_coo_dense":
            code, message = ref_report
            check(code == 2 and "/extra/coo_bad: gradient must be finite, but element (3, 2) is nan at step 2" in message,
                  f"bad coo gradient: {ref_report}")

    # Resumed: a streamed run from a streamed output equals the whole run of both steps.
    options = {"optimizer": "adam", "semantics": "lazy", "rule": "torch"}
    first = os.path.join(work, "resume.first.h5")
    second = os.path.join(work, "resume.second.h5")
    both = os.path.join(work, "resume.both.h5")
    for args in [["-o", first, "--param", "/extra/param", "--grad", "/extra/grad_csr", "--memory-limit", "1"],
                 ["-o", second, "--state-from", first, "--grad", "/extra/grad_dense32", "--memory-limit", "64"],
                 ["-o", both, "--param", "/extra/param_coo", "--grad", "/extra/grad_csr", "--grad", "/extra/grad_dense32"]]:
        run = subprocess.run([cli, "step", source] + args + args_for(options), capture_output=True, text=True)
        check(run.returncode == 0, f"resume {args}: {run.stderr}")
    same_outputs(second, both, "resumed streamed run")
    # The first run's states kept sparse (convert --keep-others copies /param and /state/step as
    # they are): resuming from them streams and writes what resuming from the dense file writes.
    sparse = os.path.join(work, "resume.first_sparse.h5")
    run = subprocess.run([cli, "convert", first, sparse, "--layout", "row_sparse", "--dataset", "/state/exp_avg",
                          "--dataset", "/state/exp_avg_sq", "--dataset", "/last_update", "--keep-others"],
                         capture_output=True, text=True)
    check(run.returncode == 0 and "/param: copied unchanged" in run.stdout, f"convert --keep-others: {run.stdout} {run.stderr}")
    with h5py.File(first) as dense, h5py.File(sparse) as kept:
        check(kept["state/exp_avg"].attrs["encoding-type"] == "row_sparse", "convert: /state/exp_avg not row_sparse")
        for key in ("param", "state/step"):
            check(np.array_equal(dense[key][()], kept[key][()]), f"convert --keep-others: {key} differs")
    # The whole file converted, the rest kept: every element row_sparse can hold is converted,
    # and the 0-d /state/step, which it cannot, is copied; without --keep-others that fails.
    whole = os.path.join(work, "resume.first_whole_sparse.h5")
    run = subprocess.run([cli, "convert", first, whole, "--layout", "row_sparse", "--keep-others"],
                         capture_output=True, text=True)
    check(run.returncode == 0 and "/state/step: copied unchanged" in run.stdout.splitlines(),
          f"convert of a whole step output --keep-others: {run.stdout} {run.stderr}")
    with h5py.File(first) as dense, h5py.File(whole) as kept:
        for key in ("param", "state/exp_avg", "state/exp_avg_sq", "last_update"):
            check(kept[key].attrs["encoding-type"] == "row_sparse", f"convert --keep-others: {key} not row_sparse")
        check(kept["state/step"][()] == dense["state/step"][()], "convert --keep-others: /state/step differs")
    run = subprocess.run([cli, "convert", first, whole + ".refused.h5", "--layout", "row_sparse"],
                         capture_output=True, text=True)
    check(run.returncode == 2 and "/state/step: layout row_sparse needs rank >= 1" in run.stderr
          and not os.path.exists(whole + ".refused.h5"), f"convert of a 0-d element: {run.returncode} {run.stderr}")
    resumed = os.path.join(work, "resume.second_from_sparse.h5")
    run = subprocess.run([cli, "step", source, "-o", resumed, "--state-from", sparse, "--grad", "/extra/grad_dense32",
                          "--memory-limit", "4K", "--json"] + args_for(options), capture_output=True, text=True)
    check(run.returncode == 0 and json.loads(run.stdout)["streamed"], f"resume from sparse states: {run.stdout} {run.stderr}")
    same_outputs(second, resumed, "resumed from sparse states")
    run = subprocess.run([cli, "step", source, "-o", resumed, "--state-from", whole, "--grad", "/extra/grad_dense32",
                          "--memory-limit", "4K", "--json"] + args_for(options), capture_output=True, text=True)
    check(run.returncode == 0 and json.loads(run.stdout)["streamed"], f"resume from a whole sparse file: {run.stdout} {run.stderr}")
    same_outputs(second, resumed, "resumed from a whole sparse file")
    return compared


def mask_notices(cli, work):
    """A --mask is read for its nonzeros: its dtype's conversion is not noted, but what reading
    it finds is (a csr mask's unsorted indices), streamed (a block of rows) or whole (memory
    limit 1: one row a block)."""
    path = os.path.join(work, "mask_notices.h5")
    with h5py.File(path, "w") as f:
        f["p"] = np.ones((4, 3), np.float32)
        f["g"] = np.full((4, 3), 0.5, np.float32)
        f["dense"] = np.array([[1, 0, 1]] * 4, bool)
        g = f.create_group("csr")
        tag(g, "csr_matrix")
        g.attrs["shape"] = np.array([4, 3])
        g["indptr"] = np.array([0, 2, 2, 3, 3], np.int64)
        g["indices"] = np.array([2, 0, 1], np.int64)  # row 0's two indices out of order
        g["data"] = np.ones(3, bool)
    for mask, limit in [("/dense", "auto"), ("/csr", "auto"), ("/csr", "1")]:
        run = subprocess.run([cli, "step", path, "-o", os.path.join(work, "mask_notices_out.h5"), "--param", "/p",
                              "--grad", "/g", "--mask", mask, "--optimizer", "sgd", "--semantics", "masked", "--lr", "1",
                              "--memory-limit", limit], capture_output=True, text=True)
        check(run.returncode == 0, f"mask {mask}: {run.stderr}")
        check("converted" not in run.stderr, f"mask {mask}: a conversion notice: {run.stderr}")
        if mask == "/csr":
            check("csr: CSR I7: indices were unsorted" in run.stderr, f"mask {mask} under {limit}: its notice: {run.stderr}")


def main(cli, golden, work):
    os.makedirs(work, exist_ok=True)
    with h5py.File(golden) as f:
        cases = {name: (json.loads(f[name].attrs["options"]), int(f[name].attrs["steps"]), "mask" in f[name]) for name in f}
    for name, (options, steps, has_mask) in cases.items():
        base = "/" + name
        grads = sum([["--grad", f"{base}/grads/{k}"] for k in range(steps)], [])
        mask = ["--mask", base + "/mask"] if has_mask else []
        out = os.path.join(work, name + ".h5")
        run = subprocess.run([cli, "step", golden, "-o", out, "--param", base + "/param", "--json"] + grads + mask
                             + args_for(options), capture_output=True, text=True)
        check(run.returncode == 0, f"{name}: {run.stderr}")
        report = json.loads(run.stdout)
        check(report["steps"] == steps and "compute_seconds" in report and "io_seconds" in report, f"{name}: report {report}")
        check(report["device"] == "cpu" and report["device_init_seconds"] == 0, f"{name}: device in {report}")
        with h5py.File(out) as o, h5py.File(golden) as f:
            check(close(o["param"][:], f[base + "/expected/param"][:]), f"{name}: param differs")
            for state in f[base + "/expected/state"]:
                check(close(o["state/" + state][:], f[base + "/expected/state/" + state][:]), f"{name}: {state} differs")
            check(o["state/step"][()] == steps and o["state/step"].dtype == np.int64, f"{name}: step")
            check(np.array_equal(o["last_update"][:], f[base + "/expected/last_update"][:]), f"{name}: last_update")

        # Resume one step at a time.
        previous = None
        for k in range(steps):
            part = os.path.join(work, f"{name}.part{k}.h5")
            source = ["--state-from", previous] if previous else ["--param", base + "/param"]
            run = subprocess.run([cli, "step", golden, "-o", part, "--grad", f"{base}/grads/{k}"] + source + mask
                                 + args_for(options), capture_output=True, text=True)
            check(run.returncode == 0, f"{name} resume step {k}: {run.stderr}")
            previous = part
        with h5py.File(out) as whole, h5py.File(previous) as resumed:
            for key in ["param", "state/step", "last_update"] + ["state/" + s for s in whole["state"] if s != "step"]:
                check(np.array_equal(whole[key][()], resumed[key][()]), f"{name}: resumed {key} differs from one run")

    # Divergence: after one step from zero state SparseAdam and dense Adam agree on the
    # parameter (untouched rows have m = v = 0); from the second step dense Adam keeps moving
    # rows whose momentum is non-zero, lazy does not.
    grads = sum([["--grad", f"/torch_sparse_adam/grads/{k}"] for k in range(3)], [])
    run = subprocess.run([cli, "step", golden, "-o", os.path.join(work, "cmp.h5"), "--param", "/torch_sparse_adam/param"]
                         + grads + ["--optimizer", "adam", "--semantics", "lazy",
                          "--compare", "dense", "--compare", "masked", "--json"], capture_output=True, text=True)
    check(run.returncode == 0, run.stderr)
    div = json.loads(run.stdout)["divergence"]
    check([d["semantics"] for d in div] == [["lazy", "dense"], ["lazy", "masked"]], f"divergence pairs {div}")
    param_dense = next(t for t in div[0]["tensors"] if t["name"] == "param")
    check(param_dense["max_abs_diff"] > 0 and param_dense["differing_rows"] > 0, f"lazy vs dense must differ: {div[0]}")
    mask_notices(cli, work)
    streamed = same_however_stored(cli, golden, work, cases)
    print(f"ok: {len(cases)} golden cases through the CLI, resume equals one run, divergence reported, "
          f"{streamed} cases the same however the parameter is stored and cut")


if __name__ == "__main__":
    main(*sys.argv[1:4])
