#!/usr/bin/python3
"""`sparsity run` end to end:

    batch_cases.py SPARSITY SAMPLE.h5 WORKDIR

* a glob over two good inputs and a corrupt one: the good ones are written and equal what
  `sparsity sparsify` writes for the same recipe; the corrupt one is reported by name, gets no
  output, the run goes on and exits 1; --json reports every input;
* sparsify + step in one recipe: the output holds the sparsified datasets and what
  `sparsity step` writes when it steps on them;
* per-dataset sparsifiers: each dataset named in sparsify.per_dataset gets its own method,
  equal to `sparsity sparsify` with that method; one naming a dataset the input lacks fails
  that input (exit 1) and writes nothing;
* --dry-run lists the work and writes nothing;
* an output folder that cannot be created fails that input (exit 1) and writes nothing."""
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)


def run(cli, *args, code=0):
    r = subprocess.run([cli, *args], capture_output=True, text=True)
    check(r.returncode == code, f"{args}: exit {r.returncode}, expected {code}: {r.stderr}")
    return r


def same_file_contents(a, b, names):
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        for name in names:
            ea, eb = fa[name], fb[name]
            if isinstance(ea, h5py.Dataset):
                check(np.array_equal(ea[()], eb[()]), f"{a}:{name} differs from {b}")
            else:
                for key in ea:
                    check(np.array_equal(ea[key][()], eb[key][()]), f"{a}:{name}/{key} differs from {b}")


def write_batch(path, recipe):
    with open(path, "w") as f:
        json.dump(recipe, f)


def main(cli, sample, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "in"))
    for name in ("a.h5", "b.h5"):
        shutil.copy(sample, os.path.join(work, "in", name))
    with open(os.path.join(work, "in", "broken.h5"), "w") as f:
        f.write("not an HDF5 file")

    # Sparsify over a glob with one bad input.
    batch = os.path.join(work, "threshold.json")
    write_batch(batch, {"version": 1, "inputs": ["in/*.h5"], "datasets": ["/emb", "/W"], "device": "cpu",
                        "sparsify": {"method": "threshold", "threshold": 4.0},
                        "output": {"layout": "csr", "path": "out/{stem}.sparse.h5"}})
    dry = run(cli, "run", batch, "--dry-run")
    check(dry.stdout.count(" -> ") == 3, f"--dry-run listed {dry.stdout!r}")
    check(not os.path.exists(os.path.join(work, "out")), "--dry-run wrote something")

    r = run(cli, "run", batch, "--json", code=1)
    report = json.loads(r.stdout)
    check(report["failed"] == 1 and len(report["inputs"]) == 3, f"report {report}")
    broken = [i for i in report["inputs"] if not i["ok"]]
    check(len(broken) == 1 and "broken.h5" in broken[0]["error"], f"bad input not named: {broken}")
    check("broken.h5" in r.stderr and r.stderr.count("error:") == 1, f"stderr {r.stderr!r}")
    check(not os.path.exists(os.path.join(work, "out", "broken.sparse.h5")), "a failed input left an output")
    check(sorted(os.listdir(os.path.join(work, "out"))) == ["a.sparse.h5", "b.sparse.h5"], "outputs")
    for i in report["inputs"]:
        if i["ok"]:
            check("compute_seconds" in i and "io_seconds" in i and i["sparsify"], f"input report {i}")
    expected = os.path.join(work, "expected.h5")
    run(cli, "sparsify", os.path.join(work, "in", "a.h5"), "-o", expected, "--method", "threshold", "--threshold", "4",
        "--dataset", "/emb", "--dataset", "/W", "--layout", "csr")
    same_file_contents(os.path.join(work, "out", "a.sparse.h5"), expected, ["/emb", "/W"])

    # Sparsify, then step on the result.
    both = os.path.join(work, "both.json")
    write_batch(both, {"version": 1, "inputs": ["in/a.h5"], "datasets": ["/emb"], "device": "cpu",
                       "sparsify": {"method": "data-norm", "sparsity_level": 0.5, "block": "1x4"},
                       "step": {"optimizer": "adagrad", "semantics": "lazy", "param": "/emb", "grads": ["/g0", "/g1"],
                                "lr": 0.1},
                       "output": {"path": "stepped/{name}"}})
    run(cli, "run", both)
    out = os.path.join(work, "stepped", "a.h5")
    pruned = os.path.join(work, "pruned.h5")
    run(cli, "sparsify", os.path.join(work, "in", "a.h5"), "-o", pruned, "--method", "data-norm",
        "--sparsity-level", "0.5", "--block", "1x4", "--dataset", "/emb")
    with h5py.File(pruned, "a") as f, h5py.File(os.path.join(work, "in", "a.h5"), "r") as src:
        for g in ("g0", "g1"):
            src.copy(g, f)
    stepped = os.path.join(work, "stepped_by_hand.h5")
    run(cli, "step", pruned, "-o", stepped, "--optimizer", "adagrad", "--semantics", "lazy", "--param", "/emb",
        "--grad", "/g0", "--grad", "/g1", "--lr", "0.1")
    same_file_contents(out, stepped, ["/param", "/state/sum", "/state/step", "/last_update"])
    same_file_contents(out, pruned, ["/emb"])

    # Per-dataset sparsifiers: /W by N:M, the rest by threshold.
    mixed = os.path.join(work, "mixed.json")
    write_batch(mixed, {"version": 1, "inputs": ["in/a.h5"], "datasets": ["/emb", "/W"], "device": "cpu",
                        "sparsify": {"method": "threshold", "threshold": 4.0,
                                     "per_dataset": {"/W": {"method": "n-m", "n": 1, "m": 2}}},
                        "output": {"layout": "coo", "path": "mixed/{stem}.h5"}})
    run(cli, "run", mixed)
    by_hand = os.path.join(work, "nm_by_hand.h5")
    run(cli, "sparsify", os.path.join(work, "in", "a.h5"), "-o", by_hand, "--method", "n-m", "--n", "1", "--m", "2",
        "--dataset", "/W", "--layout", "coo")
    same_file_contents(os.path.join(work, "mixed", "a.h5"), by_hand, ["/W"])
    thresholded = os.path.join(work, "threshold_coo.h5")
    run(cli, "sparsify", os.path.join(work, "in", "a.h5"), "-o", thresholded, "--method", "threshold", "--threshold", "4",
        "--dataset", "/emb", "--layout", "coo")
    same_file_contents(os.path.join(work, "mixed", "a.h5"), thresholded, ["/emb"])

    missing = os.path.join(work, "missing.json")
    write_batch(missing, {"version": 1, "inputs": ["in/a.h5"], "sparsify": {"method": "threshold", "threshold": 1,
                                                                            "per_dataset": {"/nope": {"method": "n-m"}}},
                          "output": {"path": "missing/{stem}.h5"}})
    r = run(cli, "run", missing, code=1)
    check("a.h5:/nope: has its own sparsifier but is not among the datasets sparsified" in r.stderr, f"stderr {r.stderr!r}")
    check(not os.path.exists(os.path.join(work, "missing", "a.h5")), "a failed input left an output")

    # An output folder that cannot be created (its parent is a file): that input fails.
    with open(os.path.join(work, "blocker"), "w") as f:
        f.write("a file, not a folder")
    blocked = os.path.join(work, "blocked.json")
    write_batch(blocked, {"version": 1, "inputs": ["in/a.h5"], "sparsify": {"method": "threshold", "threshold": 1},
                          "output": {"path": "blocker/{stem}.h5"}})
    r = run(cli, "run", blocked, code=1)
    check("cannot create the output folder" in r.stderr, f"stderr {r.stderr!r}")
    print("batch cases passed")


if __name__ == "__main__":
    main(*sys.argv[1:4])
