#!/usr/bin/python3
"""eval over masked_tensor inputs (dense data and mask) and bool datasets streams:

    eval_masked_stream_cases.py SPARSITY WORKDIR

* row-local expressions (elementwise ops, masked, intersect, data, where, reductions and softmax
  over a dim other than 0) and reductions over all dims or dim 0 of masked values are evaluated
  a block of rows at a time, by default and in many blocks under a 4K budget, with one thread
  and two, and write what the whole-tensor evaluation (--print holds the result) writes: the
  masked_tensor group's data and mask byte for byte, its attributes, and the report's kind,
  nnz and the inputs' specified counts (of a masked or bool input bound but unused too);
* masks that differ under the strict policy are refused with the whole evaluation's message,
  counting the whole tensors' differing elements and naming the first (which may lie in any
  block), and no output file; with the intersect policy the same expression streams;
* softmax and log_softmax over dim 0 of masked values stream too (columns with nothing
  specified included), inside other expressions and inside each other, and products of masked
  values by an input held whole (masked or not); the first-row probe of the dtype does not hide
  a difference in row 0, nor do the passes that fold a softmax's columns one in a later block."""
import json
import os
import shutil
import sys

import h5py
import numpy as np

from memory_limit_cases import check, run


def write_masked(f, name, data, mask):
    g = f.create_group(name)
    g.attrs["encoding-type"], g.attrs["encoding-version"] = "masked_tensor", "0.1.0"
    g["data"] = data
    g["mask"] = mask


def element(f, path):
    """An element's arrays and attributes, to compare byte for byte."""
    item = f[path]
    attrs = {k: (v.tobytes() if isinstance(v, np.ndarray) else v) for k, v in item.attrs.items()}
    if isinstance(item, h5py.Dataset):
        value = item[()]
        return {"": (value.dtype.str, value.shape, value.tobytes(), attrs)}
    out = {"": attrs}
    for name in item:
        out.update({f"{name}/{k}": v for k, v in element(f, f"{path}/{name}").items()})
    return out


def write_inputs(path, rng):
    rows, cols = 300, 70
    mask = rng.random((rows, cols)) < 0.7
    mask[40:80] = False  # rows with nothing specified: a masked mean there is unspecified
    mask[:, 9] = False   # and a column: its softmax over dim 0 is unspecified throughout
    other = mask.copy()
    # Masks that differ in a few places, the first in a late block.
    other[250, 3], other[260, 5], other[290, 1] = ~other[250, 3], ~other[260, 5], ~other[290, 1]
    early = mask.copy()
    early[0, 0] = ~early[0, 0]  # differs in row 0, the first-row probe's
    with h5py.File(path, "w") as f:
        f["x"] = rng.standard_normal((rows, cols)).astype(np.float32)
        f["y"] = rng.standard_normal((rows, cols)).astype(np.float32)
        f["b"] = mask
        write_masked(f, "mx", rng.standard_normal((rows, cols)).astype(np.float32), mask)
        write_masked(f, "my", rng.standard_normal((rows, cols)).astype(np.float32), mask)
        write_masked(f, "mz", rng.standard_normal((rows, cols)).astype(np.float32), other)
        write_masked(f, "me", rng.standard_normal((rows, cols)).astype(np.float32), early)
        write_masked(f, "md", rng.standard_normal((rows, cols)), mask)  # float64
        write_masked(f, "mi", rng.integers(-3, 4, (rows, cols)).astype(np.int64), mask.astype(np.uint8))
        write_masked(f, "mc", rng.standard_normal((40, 5, 6)).astype(np.float32), rng.random((40, 5, 6)) < 0.5)
        write_masked(f, "mbad", rng.standard_normal((rows, cols)).astype(np.float32), mask[:, :-1])  # a mask too narrow
        f["w"] = rng.standard_normal((cols, 4)).astype(np.float32)
        f["bw"] = rng.random((cols, 4)) < 0.5
        write_masked(f, "mw", rng.standard_normal((cols, 4)).astype(np.float32), rng.random((cols, 4)) < 0.5)


NAMES = {n: n for n in ["x", "y", "b", "mx", "my", "mz", "me", "md", "mi", "mc", "w", "mw", "bw", "mbad"]}

STREAMED = [
    ("mx * 2 + 1", "mx"),
    ("mx + my", "mx my"),                            # equal masks: strict passes
    ("sqrt(abs(mx)) - my * 3 + exp(mx) / 4", "mx my"),
    ("data(mx) + 1", "mx"),                          # a plain result
    ("masked(x, b) * y", "x y b"),                   # a mask from a bool dataset
    ("masked(x, b) + mx", "x b mx"),                 # b is mx's mask
    ("where(b, x, y)", "b x y"),
    ("intersect(mx, mz) + 1", "mx mz"),
    ("mx * 1.5 + mi", "mx mi"),                      # int data, converted
    ("mx + md", "mx md"),                            # float64
    ("masked(x, md)", "x md"),                       # a float64 pattern: float32, as torch keeps x's dtype
    ("sum(mx, 1)", "mx"),                            # row-local reductions and softmax, masked lanes
    ("amax(mx * my, -1) + mean(my, 1)", "mx my"),
    ("softmax(mx, 1)", "mx"),
    ("log_softmax(mc, 2) * mc", "mc"),
    ("norm(mc, 1)", "mc"),
    ("softmax(mc, 1)", "mc"),
    ("sum(mx)", "mx"),                               # folded masked reductions
    ("mean(mx, 0)", "mx"),                           # rows 40..80 unspecified everywhere
    ("norm(mx * my)", "mx my"),
    ("amin(mc, 0)", "mc"),
    ("mean(mx + mi, 0)", "mx mi"),
    ("sum(intersect(mx, mz), 0)", "mx mz"),
    ("softmax(mx, 0)", "mx"),                        # softmax over dim 0: columns folded over specified rows
    ("log_softmax(mx * 2 - my, 0)", "mx my"),
    ("softmax(masked(x, b), 0)", "x b"),
    ("log_softmax(mc, 0)", "mc"),
    ("softmax(mx, 0) + 1", "mx"),                    # inside another expression: columns folded first
    ("sum(log_softmax(mx * 2, 0) * my, 1)", "mx my"),
    ("mean(softmax(mc, 0), 0)", "mc"),
    ("softmax(softmax(mx, 0) - my, 0)", "mx my"),    # one inside another: the inner folded first
    ("mm(mx, w)", "mx w"),                           # masked products by an input held whole
    ("softmax(mm(mx * 2, w), 1) - 1", "mx w"),
    ("mm(mx, mw) * 2", "mx mw"),                     # a masked input held whole
    ("sum(mm(x, mw), 1)", "x mw"),
    ("mm(x, bw)", "x bw"),                           # a bool input held whole
    ("sum(mm(where(b, x, y), w), 1)", "b x y w"),
    ("mean(mm(mx, w), 0)", "mx w"),                  # tiles of 16,384 rows: whole 64-row chunks
    ("x + 1", "x mz"),                               # a masked input bound but unused: read for its nnz
    ("sum(mx * 2, 1)", "mx b"),                      # a bool one
]


def inputs_for(path, used):
    return [a for n in used.split() for a in ("--input", f"{n}={path}:/{NAMES[n]}")]


def check_streams(cli, work, path):
    for expr, used in STREAMED:
        outputs, reports = {}, {}
        for name, extra, threads in [("whole", ["--print"], "2"), ("auto", [], "2"), ("auto, one thread", [], "1"),
                                     ("4K", ["--memory-limit", "4K"], "2")]:
            output = os.path.join(work, "out.h5")
            r = run(cli, "eval", "--expr", expr, *inputs_for(path, used), "-o", output, *extra, "--json",
                    env={"OMP_NUM_THREADS": threads})
            reports[name] = json.loads(r.stdout)
            check(reports[name]["result"]["streamed"] == (name != "whole"),
                  f"eval {expr!r} ({name}): streamed {reports[name]['result']}")
            with h5py.File(output) as f:
                outputs[name] = element(f, "result")
        whole = reports["whole"]
        for name in ["auto", "auto, one thread", "4K"]:
            check(outputs[name] == outputs["whole"], f"eval {expr!r}: /result ({name}) differs from the whole-tensor one")
            for key in ["kind", "nnz", "stored", "dtype", "shape", "layout"]:
                check(reports[name]["result"][key] == whole["result"][key],
                      f"eval {expr!r} ({name}): result {key} {reports[name]['result'][key]} != {whole['result'][key]}")
            check([i["nnz"] for i in reports[name]["inputs"]] == [i["nnz"] for i in whole["inputs"]],
                  f"eval {expr!r} ({name}): inputs' nnz {reports[name]['inputs']} != {whole['inputs']}")


def check_mismatches(cli, work, path):
    """Strict masks that differ: the whole evaluation's message, whichever block the difference is in."""
    for expr, used in [("mx + mz", "mx mz"),                      # differences in one late block
                       ("(mx + my) * (mx + mz)", "mx my mz"),     # the second '+' fails first
                       ("sum(mx - mz, 1)", "mx mz"),
                       ("mean(mz * mx)", "mz mx"),                # a folded reduction
                       ("me + mz", "me mz"),                      # row 0 differs too
                       ("maximum(mx, me)", "mx me"),
                       ("softmax(mz - mx, 0)", "mz mx"),                 # read three times, reported once
                       ("softmax(mz - mx, 0) * 2", "mz mx"),             # the same inside another expression
                       ("softmax(mx, 0) + mz", "mx mz"),                 # after a folded softmax
                       ("clamp(mx, mz, me)", "mx mz me"),                # mx against mz first (late rows), then me (row 0)
                       # operands of kinds the evaluator refuses are evaluated whole (so refused
                       # under 4K for memory): the message names the whole tensors, and a
                       # difference of masks met before is reported first
                       ("masked(x, y)", "x y"),
                       ("(mx + mz) * where(mx, x, y)", "mx mz x y"),
                       ("(mx + mz) * intersect(x, mx)", "mx mz x")]:
        streams = not expr.startswith(("masked(x", "(mx + mz) *"))
        output = os.path.join(work, "mismatch.h5")
        messages = {}
        budgets = [("whole", ["--print"]), ("auto", [])] + ([("4K", ["--memory-limit", "4K"])] if streams else [])
        for name, extra in budgets:
            r = run(cli, "eval", "--expr", expr, *inputs_for(path, used), "-o", output, *extra, code=2)
            messages[name] = r.stderr
            check(not os.path.exists(output), f"eval {expr!r} ({name}): left {output}")
            check(not [n for n in os.listdir(work) if n.startswith(".sw-tmp")], f"eval {expr!r} ({name}): left a temporary file")
        check(messages["whole"].startswith("error: ") and messages["whole"].count("\n") == 1,
              f"eval {expr!r}: {messages['whole']!r}")
        for name, _ in budgets[1:]:
            check(messages[name] == messages["whole"], f"eval {expr!r} ({name}): {messages[name]!r} != {messages['whole']!r}")
        if not streams:
            continue
        # The intersect policy combines them, streamed.
        r = run(cli, "eval", "--expr", expr, *inputs_for(path, used), "-o", output, "--mask-policy", "intersect",
                "--memory-limit", "4K", "--json")
        check(json.loads(r.stdout)["result"]["streamed"], f"eval {expr!r} (intersect): not streamed")
        os.remove(output)


def check_whole(cli, work, path):
    """An expression with a masked input bound but not used, of another row count than the
    inputs it uses, is evaluated whole (the report gives its specified count). A broken one
    bound but unused is refused as the whole evaluation refuses it, streamed or not."""
    output = os.path.join(work, "whole.h5")
    messages = [run(cli, "eval", "--expr", "x + 1", *inputs_for(path, "x mbad"), "-o", output, *extra, code=2).stderr
                for extra in (["--print"], [], ["--memory-limit", "4K"])]
    check(messages[0].startswith("error: ") and "mbad" in messages[0] and messages.count(messages[0]) == 3,
          f"eval beside a broken unused mbad: {messages}")
    check(not os.path.exists(output), f"eval beside a broken unused mbad: left {output}")
    r = json.loads(run(cli, "eval", "--expr", "x + 1", *inputs_for(path, "x mc"), "-o", output, "--json").stdout)
    check(not r["result"]["streamed"] and 0 < r["inputs"][1]["nnz"] < 40 * 5 * 6, f"eval 'x + 1' beside an unused mc: {r}")


def main(cli, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    path = os.path.join(work, "masked_inputs.h5")
    write_inputs(path, np.random.default_rng(11))
    check_streams(cli, work, path)
    check_mismatches(cli, work, path)
    check_whole(cli, work, path)
    print("eval of masked inputs streams: ok")


if __name__ == "__main__":
    main(*sys.argv[1:3])
