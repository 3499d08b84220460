#!/usr/bin/python3
"""`sparsity gradcheck` end to end:

    gradcheck_cases.py SPARSITY WORKDIR

* the instructive case (docs/SEMANTICS.md, "gradcheck"): non-masked fails (exit 1), masked fails (exit 1), masked with
  sparse_mask passes (exit 0), and the text says why;
* --json has the fields of docs/CLI.md, "gradcheck"; Jacobian rows are input elements, columns output elements;
  bool inputs get no Jacobian;
* --json writes each Jacobian entry so that it reads back to the same double: sum(a * a)'s
  analytical Jacobian is 2a exactly, and sum(a * 2)'s entries are written as floats (2.0);
* --fast passes on a 64 x 64 softmax(mm(x, w), 1); its whole Jacobians over --memory-limit are
  refused (exit 2, one line naming the inputs and fast mode), and --fast fits."""
import json
import os
import subprocess
import sys

import h5py
import numpy as np


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)


def run(cli, *args, code):
    r = subprocess.run([cli, "gradcheck", *args], capture_output=True, text=True)
    check(r.returncode == code, f"{args}: exit {r.returncode}, expected {code}: {r.stderr}")
    return r.stdout


def main(cli, work):
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "inputs.h5")
    rng = np.random.default_rng(2)
    with h5py.File(path, "w") as f:
        g = f.create_group("x")   # [[--, 1], [2, 3]] as COO
        g.attrs["encoding-type"], g.attrs["encoding-version"] = "coo_tensor", "0.1.0"
        g.attrs["shape"] = np.array([2, 2], np.int64)
        g["indices"] = np.array([[0, 1, 1], [1, 0, 1]], np.int64)
        g["values"] = np.array([1.0, 2.0, 3.0])
        f["m"] = np.array([[0, 1], [1, 1]], bool)
        f["a"] = rng.standard_normal((64, 64))
        f["w"] = rng.standard_normal((64, 64))
    x, m = f"x={path}:/x", f"m={path}:/m"
    case = "mm(sparse_mm(x, x), x)"

    text = run(cli, "--expr", case, "--input", x, code=1)
    check("FAILED (non-masked" in text and "masked backward of sparse_mm operand 1" in text, text)
    # Why row 0 differs: sparse_mm projects both operands' gradients, only mm's backward reaches x[0, 0].
    check("sparse_mm's backward projects each sparse operand's gradient onto that operand's own pattern" in text
          and "only the non-masked backward of mm operand 2 reaches x[0, 0]" in text, text)
    text = run(cli, "--expr", case, "--input", x, "--masked", code=1)
    check("FAILED (masked" in text and "masked gradcheck does not perturb it" in text, text)
    projected = "mm(sparse_mm(sparse_mask(x, m), sparse_mask(x, m)), sparse_mask(x, m))"
    report = json.loads(run(cli, "--expr", projected, "--input", x, "--input", m, "--masked", "--json", code=0))
    for key in ("passed", "masked", "eps", "atol", "rtol", "inputs", "compute_seconds"):
        check(key in report, f"--json lacks {key}")
    check(report["passed"] and report["masked"], f"{report['passed']} {report['masked']}")
    check([i["name"] for i in report["inputs"]] == ["x"], "the bool mask m must not get a Jacobian")
    j = report["inputs"][0]
    check(len(j["numerical"]) == 4 and len(j["numerical"][0]) == 4, "Jacobian is not 4 x 4")
    check(all(v == 0 for v in j["numerical"][0]), "row of unspecified x[0, 0] is not 0 in masked mode")
    for key in ("analytical", "max_abs_diff", "mismatches"):
        check(key in j, f"input report lacks {key}")

    failed = json.loads(run(cli, "--expr", case, "--input", x, "--json", code=1))
    check(not failed["passed"] and all(r == 0 for r, _ in failed["inputs"][0]["mismatches"]), "mismatches not in row 0")

    with h5py.File(path) as f:
        a = f["a"][:]
    square = json.loads(run(cli, "--expr", "sum(a * a)", "--input", f"a={path}:/a", "--json", code=0))
    analytical = square["inputs"][0]["analytical"]
    check(len(analytical) == a.size and all(len(row) == 1 for row in analytical), "sum(a * a): Jacobian 4096 x 1")
    check(np.array_equal(np.array(analytical)[:, 0], 2.0 * a.ravel()), "sum(a * a): analytical Jacobian != 2a exactly")
    doubled = json.loads(run(cli, "--expr", "sum(a * 2)", "--input", f"a={path}:/a", "--json", code=0))
    entries = [row[0] for row in doubled["inputs"][0]["analytical"]]
    check(all(isinstance(v, float) and v == 2.0 for v in entries), "sum(a * 2): whole-number entries not written as 2.0")

    fast = json.loads(run(cli, "--expr", "softmax(mm(a, w), 1)", "--input", f"a={path}:/a", "--input",
                          f"w={path}:/w", "--fast", "--json", code=0))
    check(fast["passed"] and fast["fast"], "fast mode")
    # Whole Jacobians over the memory limit are refused before any is made (4096 x 4096 entries
    # each, numerical and analytical: 512 MiB), naming the inputs and fast mode, which fits.
    r = subprocess.run([cli, "gradcheck", "--expr", "softmax(mm(a, w), 1)", "--input", f"a={path}:/a", "--input",
                        f"w={path}:/w", "--memory-limit", "1M"], capture_output=True, text=True)
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    check(r.returncode == 2 and len(errors) == 1 and f"{path}:/a" in errors[0] and "fast mode" in errors[0]
          and "1.0 MiB" in errors[0], f"Jacobians over the budget: exit {r.returncode}, {r.stderr!r}")
    fast = json.loads(run(cli, "--expr", "softmax(mm(a, w), 1)", "--input", f"a={path}:/a", "--input",
                          f"w={path}:/w", "--fast", "--memory-limit", "1M", "--json", code=0))
    check(fast["passed"], "fast mode under 1M")
    print("gradcheck cases passed")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
