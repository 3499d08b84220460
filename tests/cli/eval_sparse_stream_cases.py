#!/usr/bin/python3
"""eval over sparse inputs streams where the expression reads their values alone:

    eval_sparse_stream_cases.py SPARSITY WORKDIR

* a csr (unsorted indices and a duplicate in a late row, a stored zero and -0), a row_sparse
  element, a coo whose entries' rows ascend (with duplicates whose sum depends on their order:
  1e8 + 1 - 1e8) and a float64 csr, used as operands of elementwise ops, reductions and data()
  (also inside softmax over dim 0 or 1 and products by an input held whole), are densified a
  block of rows at a time, by default and in many blocks under a 4K budget, with one thread and
  two: /result byte for byte, the report's kind, nnz and the inputs' stored counts, and the
  notes (I7's repair, told once over every block) are the whole-tensor evaluation's (--print
  holds the result);
* a sparse input bound but unused is read by rows too, for its checks and its count;
* a coo whose rows go back and a csc (its columns' rows unsorted, a duplicate) are densified
  from bands of rows, each read once and held coalesced: by default (one band, a scan), under
  64K (several) and under 4K (dozens; past two bands spilled sorted by row to a scratch file
  first, each band one read of it), checked as above;
* where the expression sees a sparse input's pattern (softmax, sparse_mask, masked, mm or the
  input itself as the result), it is evaluated whole: within the budget the same file, over it
  refused (exit 2, no output);
* the whole evaluation (--print) refuses inputs whose dense forms exceed the budget;
* a bad index in a later block (of a csr or a coo whose rows ascend) or column (of a csc) is
  refused with the whole read's message, and no output."""
import json
import os
import shutil
import sys

import h5py
import numpy as np

from eval_masked_stream_cases import element
from memory_limit_cases import check, run


def sparse_group(f, name, encoding, shape):
    g = f.create_group(name)
    g.attrs["encoding-type"], g.attrs["encoding-version"] = encoding, "0.1.0"
    g.attrs["shape"] = np.array(shape, dtype=np.int64)
    return g


def write_csr(f, name, table, twisted_row=None):
    """`table` as csr; in `twisted_row` its indices reversed and its first entry stored twice."""
    indices, data, indptr = [], [], [0]
    for i, row in enumerate(table):
        columns = list(np.nonzero(row)[0])
        values = list(row[columns])
        if i == twisted_row and columns:
            columns, values = columns[::-1] + [columns[-1]], values[::-1] + [1e8]
        indices += columns
        data += values
        indptr.append(len(indices))
    g = sparse_group(f, name, "csr_matrix", table.shape)
    g["data"] = np.array(data, dtype=table.dtype)
    g["indices"] = np.array(indices, dtype=np.int64)
    g["indptr"] = np.array(indptr, dtype=np.int64)
    return g


def write_inputs(path, rng):
    rows, cols = 300, 70
    table = np.where(rng.random((rows, cols)) < 0.1, rng.standard_normal((rows, cols)), 0).astype(np.float32)
    table[7, 3], table[8, 4] = 0.0, 0.0
    with h5py.File(path, "w") as f:
        f["x"] = rng.standard_normal((rows, cols)).astype(np.float32)
        f["w"] = rng.standard_normal((cols, 4)).astype(np.float32)
        f["b"] = rng.random((rows, cols)) < 0.5
        csr = write_csr(f, "s", table, twisted_row=250)
        # A stored zero and a stored -0 (densified: +0 and -0 added to 0).
        data, indices, indptr = csr["data"][()], list(csr["indices"][()]), list(csr["indptr"][()])
        for row, column, value in ((7, 3, 0.0), (8, 4, -0.0)):
            at = indptr[row + 1]
            data = np.insert(data, at, value)
            indices.insert(at, column)
            indptr[row + 1:] = [p + 1 for p in indptr[row + 1:]]
        del csr["data"], csr["indices"], csr["indptr"]
        csr["data"], csr["indices"], csr["indptr"] = data, np.array(indices, np.int64), np.array(indptr, np.int64)
        write_csr(f, "sd", table.astype(np.float64))
        filled = np.unique(np.nonzero(table)[0])
        rs = sparse_group(f, "r", "row_sparse", table.shape)
        rs["indices"], rs["data"] = filled.astype(np.int64), table[filled]
        rows_of, cols_of = np.nonzero(table)
        order = np.lexsort((rng.random(len(rows_of)), rows_of))  # rows ascending, columns shuffled
        r, c, v = rows_of[order], cols_of[order], table[rows_of[order], cols_of[order]]
        r = np.concatenate([r[:5], [r[5]] * 3, r[5:]])
        c = np.concatenate([c[:5], [c[5]] * 3, c[5:]])
        v = np.concatenate([v[:5], [1e8, 1, -1e8], v[5:]]).astype(np.float32)
        coo = sparse_group(f, "c", "coo_tensor", table.shape)
        coo["indices"], coo["values"] = np.stack([r, c]).astype(np.int64), v
        shuffled = rng.permutation(len(r))
        back = sparse_group(f, "cb", "coo_tensor", table.shape)  # rows going back: read in bands
        back["indices"], back["values"] = np.stack([r[shuffled], c[shuffled]]).astype(np.int64), v[shuffled]
        # A csc, each column's rows shuffled and an entry of column 2 stored twice (I7: sorted,
        # the duplicate summed in stored order).
        by_column = np.lexsort((rng.random(len(rows_of)), cols_of))
        cr, cc_, cv = rows_of[by_column], cols_of[by_column], table[rows_of[by_column], cols_of[by_column]]
        first_of_2 = int(np.searchsorted(cc_, 2))
        cr = np.insert(cr, first_of_2, cr[first_of_2])
        cc_ = np.insert(cc_, first_of_2, 2)
        cv = np.insert(cv, first_of_2, 1e8).astype(np.float32)
        csc = sparse_group(f, "cc", "csc_matrix", table.shape)
        csc["data"], csc["indices"] = cv, cr.astype(np.int64)
        csc["indptr"] = np.searchsorted(cc_, np.arange(cols + 1)).astype(np.int64)
        csc_bad = sparse_group(f, "ccbad", "csc_matrix", table.shape)
        csc_bad["data"], csc_bad["indptr"] = cv, csc["indptr"][()]
        csc_bad["indices"] = np.concatenate([cr[:-5], [rows], cr[-4:]]).astype(np.int64)  # out of range
        bad = write_csr(f, "sbad", table)
        bad_indices = bad["indices"][()]
        bad_indices[-3] = cols  # out of range, in the last rows
        bad["indices"][...] = bad_indices
        # A coo whose rows ascend, with columns out of range in two late blocks (the first is
        # the whole read's to name), and one whose last row is out of range.
        late = np.stack([r, c]).astype(np.int64)
        late[1, -9], late[1, -2] = cols + 3, -1
        coo_bad = sparse_group(f, "cbad", "coo_tensor", table.shape)
        coo_bad["indices"], coo_bad["values"] = late, v
        past = np.stack([r, c]).astype(np.int64)
        past[0, -1] = rows
        coo_bad_row = sparse_group(f, "cbadrow", "coo_tensor", table.shape)
        coo_bad_row["indices"], coo_bad_row["values"] = past, v


STREAMED = [
    ("s * 2 + x", "s x"),
    ("sqrt(abs(s)) - r * 3 + exp(c) / 4", "s r c"),
    ("sd * x", "sd x"),                              # float64: evaluated in float64
    ("s + sd", "s sd"),                              # a float32 csr densified in float64
    ("data(s) - 1", "s"),
    ("where(s, x, r)", "s x r"),
    ("masked(x, b) * s", "x b s"),                   # a masked result of sparse values
    ("sum(s, 1)", "s"),
    ("amax(c * x, -1) + mean(r, 1)", "c x r"),
    ("softmax(s * 1, 1)", "s"),                      # the softmax sees a plain value
    ("sum(s)", "s"),                                 # folded reductions
    ("mean(c, 0)", "c"),
    ("norm(s * r)", "s r"),
    ("softmax(r + 0, 0)", "r"),                      # columns folded over the densified rows
    ("mm(s * 1, w)", "s w"),                         # by an input held whole
    ("x + 1", "x s"),                                # bound but unused: read for its count
]

WHOLE = [
    ("s", "s"),                                      # the result is the sparse input itself
    ("softmax(s, 1)", "s"),                          # its pattern
    ("sparse_mask(x, s)", "x s"),
    ("masked(x, s)", "x s"),
    ("mm(s, w)", "s w"),
]

# A coo whose rows go back and a csc: densified from bands of rows, each read once and held
# coalesced (one band by default, a scan; 7 under 64K, each reader's band 16K, and dozens under
# 4K, spilled sorted by row first).
BANDED = [
    ("cb * 2", "cb"),
    ("sum(cc * x, 1)", "cc x"),
    ("cc - cb + s", "cc cb s"),
    ("softmax(cc + 0, 0)", "cc"),                    # columns folded: every band read twice
    ("mean(cb, 0)", "cb"),
    ("x + 1", "x cc"),                               # bound but unused: read for its count
]


def inputs_for(path, used):
    return [a for n in used.split() for a in ("--input", f"{n}={path}:/{n}")]


def evaluated(cli, work, expr, used, path, extra, threads="2", code=0):
    output = os.path.join(work, "out.h5")
    if os.path.exists(output):
        os.remove(output)
    r = run(cli, "eval", "--expr", expr, *inputs_for(path, used), "-o", output, *extra, "--json",
            env={"OMP_NUM_THREADS": threads}, code=code)
    if code:
        return r, None, None
    with h5py.File(output) as f:
        return r, json.loads(r.stdout), element(f, "result")


def check_streams(cli, work, path, cases=STREAMED, budgets=("4K",)):
    for expr, used in cases:
        whole_run, whole, result = evaluated(cli, work, expr, used, path, ["--print"])
        check(not whole["result"]["streamed"], f"eval {expr!r} (whole): streamed")
        for name, extra, threads in [("auto", [], "2"), ("auto, one thread", [], "1"),
                                     *[(budget, ["--memory-limit", budget], "2") for budget in budgets]]:
            r, report, ours = evaluated(cli, work, expr, used, path, extra, threads)
            check(report["result"]["streamed"], f"eval {expr!r} ({name}): not streamed")
            check(ours == result, f"eval {expr!r} ({name}): /result differs from the whole-tensor one")
            for key in ["kind", "nnz", "stored", "dtype", "shape", "layout"]:
                check(report["result"][key] == whole["result"][key],
                      f"eval {expr!r} ({name}): result {key} {report['result'][key]} != {whole['result'][key]}")
            check([i["nnz"] for i in report["inputs"]] == [i["nnz"] for i in whole["inputs"]],
                  f"eval {expr!r} ({name}): inputs' nnz {report['inputs']} != {whole['inputs']}")
            check(r.stderr == whole_run.stderr, f"eval {expr!r} ({name}): notes {r.stderr!r} != {whole_run.stderr!r}")
    # I7's repair of /s is told once, with the whole read's count.
    r, _, _ = evaluated(cli, work, "s * 2", "s", path, ["--memory-limit", "4K"])
    check(r.stderr.count("I7") == 1 and "1 duplicates summed" in r.stderr, f"I7's notice of /s: {r.stderr!r}")


def check_whole(cli, work, path):
    for expr, used in WHOLE:
        _, whole, result = evaluated(cli, work, expr, used, path, ["--print"])
        _, report, ours = evaluated(cli, work, expr, used, path, [])
        check(not report["result"]["streamed"] and ours == result, f"eval {expr!r}: not the whole evaluation")
    for expr, used in WHOLE:
        r, _, _ = evaluated(cli, work, expr, used, path, ["--memory-limit", "4K"], code=2)
        check(r.stderr.startswith("error: ") and r.stderr.count("\n") == 1 and "memory limit" in r.stderr,
              f"eval {expr!r} under 4K: {r.stderr!r}")
        check(not os.path.exists(os.path.join(work, "out.h5")), f"eval {expr!r} under 4K: an output")


def check_whole_within_budget(cli, work, path):
    """The whole evaluation holds its inputs densely: under a budget that reading each of their
    datasets fits (/cc's 17 KiB indices under 32K) but their dense forms (82 KiB) do not, it is
    refused, not run past the budget."""
    r, _, _ = evaluated(cli, work, "cc * 2", "cc", path, ["--print", "--memory-limit", "32K"], code=2)
    check(r.stderr.startswith("error: expression 'cc * 2': holding its inputs densely needs 82.0 KiB")
          and r.stderr.count("\n") == 1, f"whole eval of /cc under 32K: {r.stderr!r}")
    check(not os.path.exists(os.path.join(work, "out.h5")), "whole eval of /cc under 32K: an output")


def check_bad_index(cli, work, path):
    for name, budgets in (("sbad", ([], ["--memory-limit", "4K"])), ("ccbad", ([], ["--memory-limit", "64K"])),
                          ("cbad", ([], ["--memory-limit", "4K"])), ("cbadrow", ([], ["--memory-limit", "4K"]))):
        messages = []
        for extra in (["--print"], *budgets):
            r, _, _ = evaluated(cli, work, f"{name} * 2", name, path, extra, code=2)
            messages.append(r.stderr)
            check(not os.path.exists(os.path.join(work, "out.h5")), f"a bad index of {name} {extra}: an output")
            check(not [n for n in os.listdir(work) if n.startswith(".sw-tmp")],
                  f"a bad index of {name} {extra}: a temporary file")
        check(messages[0].startswith("error: ") and name in messages[0] and messages.count(messages[0]) == 3,
              f"a bad index of {name} in a late block: {messages}")
        if name == "cbad":  # the first offender, of dim 1, at entry nnz - 9
            with h5py.File(path, "r") as f:
                first = f["cbad/indices"].shape[1] - 9
            check(f"indices[1, {first}]" in messages[0], f"the first bad index of cbad: {messages[0]}")


def main(cli, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    path = os.path.join(work, "sparse_inputs.h5")
    write_inputs(path, np.random.default_rng(17))
    check_streams(cli, work, path)
    check_streams(cli, work, path, BANDED, ("64K", "4K"))
    check_whole(cli, work, path)
    check_whole_within_budget(cli, work, path)
    check_bad_index(cli, work, path)
    print("eval of sparse inputs streams: ok")


if __name__ == "__main__":
    main(*sys.argv[1:3])
