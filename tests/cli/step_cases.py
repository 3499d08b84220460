#!/usr/bin/python3
"""`sparsity step` end to end on the golden file (tests/reference/make_optim_golden.py):

    step_cases.py SPARSITY GOLDEN.h5 WORKDIR

* every golden case run through the CLI matches the reference (relative 2e-6);
* resuming with --state-from after each step equals running all steps at once, exactly;
* --json reports compute_seconds and io_seconds, and --compare reports divergence."""
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
    print(f"ok: {len(cases)} golden cases through the CLI, resume equals one run, divergence reported")


if __name__ == "__main__":
    main(*sys.argv[1:4])
