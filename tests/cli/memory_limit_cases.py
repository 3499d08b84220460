#!/usr/bin/python3
"""--memory-limit on every subcommand:

    memory_limit_cases.py SPARSITY WORKDIR

* every subcommand takes --memory-limit SIZE|auto, and its --json report gives
  memory_limit_bytes (the budget it ran under) and peak_memory_bytes (VmHWM);
* --help names the auto rule (half of the memory available, cgroup limits included);
* commands that hold whole tensors (gradcheck, a step of a sparse parameter,
  eval of a softmax over one whole lane or with --print) refuse an array larger than the budget
  with exit 2, one error line naming the file and dataset, and no output; inspect --count and sparsify threshold work under the same
  small budget, and so does a step of a dense parameter (a block of rows at a time);
* eval of an elementwise expression over dense inputs streams (by default, and in many blocks
  under a 4K budget), writing /result byte for byte as the whole-tensor evaluation (--print
  holds the result) does: every elementwise function, float32, float64 and an int input, a
  3-d input; so do reductions, over a dim other than 0 (row by row) and over all dims or
  dim 0 (folded block by block): every op, inputs of several tiles, rows longer than a tile,
  one thread and two;
* convert streams dense datasets, by default and under small budgets, to dense, csr, coo,
  row_sparse and csc (in column panels: one column at a time under 3K, several gathered
  under 16K), writing exactly the arrays and attributes of the whole-tensor conversion (as
  sparsify --save-state writes it with threshold 0, which keeps every value);
* BATCH.json memory_limit is every input's budget, and run's --memory-limit overrides it."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np

from coo_files import write_shuffled_coo

MIB = 1 << 20


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)


def run(cli, *args, code=0, env=None):
    r = subprocess.run([cli, *map(str, args)], capture_output=True, text=True, env={**os.environ, **(env or {})})
    check(r.returncode == code, f"{args}: exit {r.returncode}, expected {code}: {r.stderr}")
    return r


def report(cli, *args, env=None):
    r = json.loads(run(cli, *args, "--json", env=env).stdout)
    check(isinstance(r.get("memory_limit_bytes"), int), f"{args[0]}: memory_limit_bytes missing: {sorted(r)}")
    check(isinstance(r.get("peak_memory_bytes"), int) and r["peak_memory_bytes"] > MIB,
          f"{args[0]}: peak_memory_bytes {r.get('peak_memory_bytes')}")
    return r


def refused(cli, output, *args, element=r"data\.h5:/x", limit=r"1\.0 KiB"):
    r = run(cli, *args, code=2)
    lines = r.stderr.strip().splitlines()
    check(len(lines) == 1 and re.search(r"^error: .*" + element + r".*needs .* in memory, more than the memory limit of " + limit,
                                        lines[0]), f"{args[0]}: {r.stderr!r}")
    check(not os.path.exists(output), f"{args[0]}: left {output}")


def check_eval_streams(cli, work, rng):
    """Row-local eval (elementwise ops, reductions and softmax over a dim other than 0, products
    by an input held whole, softmax over dim 0 with its columns folded first) and reductions
    over all dims or dim 0 streamed, by default and under a 4K budget (blocks of a few rows), write
    what the whole-tensor evaluation (--print: the result is held) writes, byte for byte, with
    two threads and with one: every elementwise function, every reduction."""
    path = os.path.join(work, "eval_inputs.h5")
    with h5py.File(path, "w") as f:
        f["x"] = rng.standard_normal((300, 70)).astype(np.float32)
        f["y"] = rng.standard_normal((300, 70)).astype(np.float32)
        f["z"] = rng.standard_normal((300, 70))
        f["i"] = rng.integers(-3, 4, (300, 70)).astype(np.int64)
        f["cube"] = rng.standard_normal((40, 5, 6)).astype(np.float32)
        f["tall"] = rng.standard_normal((5000, 40))                 # 4 tiles of 1638 rows
        f["long"] = rng.standard_normal(200_000).astype(np.float32)  # 4 tiles of 65536 elements
        f["wide"] = rng.standard_normal((3, 70_000))                 # rows longer than a tile
        f["p"] = rng.standard_normal((70, 4)).astype(np.float32)     # held whole by mm
        f["pd"] = rng.standard_normal((70, 4))
        f["q"] = rng.standard_normal((40, 8))
        f["q3"] = rng.standard_normal((40, 3))                       # a product 3 wide
        f["sq"] = rng.standard_normal((300, 300)).astype(np.float32)  # mm(sq, sq): sq needed whole
        f["v"] = rng.standard_normal((300, 4)).astype(np.float32)   # x's rows, other widths
        f["s"] = rng.standard_normal(300)
        nf = rng.standard_normal((300, 6))
        nf[5, 1], nf[7, 2], nf[9, 3], nf[250, 3] = np.nan, np.inf, -np.inf, np.inf  # a column of each
        f["nf"] = nf
    cases = [
        ("sqrt(abs(x)) * y + 1.5", "x y"),
        ("neg(x) + rsqrt(abs(y) + 1) - square(x) / 3", "x y"),
        ("pow(abs(x), 1.7) + exp(y) - log(abs(x) + 0.5)", "x y"),
        ("sign(x) * clamp(y, -0.5, 0.25)", "x y"),
        ("exp(x) / 4 - log(abs(z) + 1)", "x z"),  # exp and log alone: every element in a packet, wherever it lies
        ("add(x, y) - sub(x, y) + mul(x, y) / div(y, 2)", "x y"),
        ("maximum(x, y) - minimum(x, -y)", "x y"),
        ("x * z - i", "x z i"),       # float64 and a converted int64: computed in float64
        ("-(c * c) + 2", "c"),         # 3-d, rows of 5 x 6
        ("sum(x * y, 1) + 1", "x y"),  # row-local reductions
        ("norm(c, 2) - amax(c, -1)", "c"),
        ("mean(amin(c, 1), 1)", "c"),
        ("sum(t * t)", "t"),           # folded reductions
        ("mean(t, 0)", "t"),
        ("norm(t - 1, -2)", "t"),
        ("amax(x * z)", "x z"),
        ("amin(sum(c, 2), 0)", "c"),
        ("sum(l)", "l"),
        ("mean(w)", "w"),
        ("norm(w, 0)", "w"),
        ("softmax(x * 2, 1) + 1", "x"),   # softmax over a dim other than 0: row-local
        ("log_softmax(z, -1)", "z"),
        ("softmax(c, 1) - log_softmax(c - 1, 2)", "c"),  # strided and contiguous lanes
        ("sum(softmax(x, 1) * y, 1)", "x y"),
        ("mean(log_softmax(t, 1), 0)", "t"),
        ("softmax(w, 1)", "w"),
        ("mm(x, p)", "x p"),               # products by an input held whole: blocks of whole chunks
        ("softmax(mm(x * 2, p), 1) - 1", "x p"),
        ("sum(mm(z, pd), 1)", "z pd"),
        ("sum(mm(x, pd) + mm(x, p))", "x p pd"),
        ("mean(mm(t, q), 0)", "t q"),
        ("mm(x, p) - v", "x p v"),           # inputs of one row count and other widths
        ("sum(x * y, 1) + s", "x y s"),
        ("amax(softmax(v, 1), 1) * s", "v s"),
        ("sum(mm(x, p) * v, 0)", "x p v"),
        ("softmax(x, 0)", "x"),              # softmax over dim 0: column totals folded in row order
        ("log_softmax(x * 2 - y, 0)", "x y"),
        ("softmax(c, 0)", "c"),
        ("log_softmax(t, -2)", "t"),
        ("softmax(mm(z, pd), 0)", "z pd"),
        ("softmax(nf, 0)", "nf"),            # columns holding NaN, inf, -inf and inf twice
        ("log_softmax(nf, 0)", "nf"),
        ("softmax(x, 0) * y + 1", "x y"),    # inside another expression: columns folded first
        ("sum(log_softmax(c * 2, 0), 1)", "c"),
        ("softmax(softmax(x, 0) - y, 0)", "x y"),  # one folded inside another: the inner first
        ("sum(softmax(t, 0))", "t"),         # a folded reduction of one
        ("mean(softmax(x, 0) - log_softmax(x, 1), 0)", "x"),
        ("mm(softmax(x, 0), p)", "x p"),
        ("softmax(nf, 0) * nf", "nf"),
        ("softmax(x, 0) * z", "x z"),        # folded in float64: z is float64
    ]
    names = {"x": "x", "y": "y", "z": "z", "i": "i", "c": "cube", "t": "tall", "l": "long", "w": "wide", "p": "p",
             "pd": "pd", "q": "q", "v": "v", "s": "s", "nf": "nf"}
    for expr, used in cases:
        inputs = [a for n in used.split() for a in ("--input", f"{n}={path}:/{names[n]}")]
        outputs = {}
        for name, extra, threads in [("whole", ["--print"], "2"), ("whole, one thread", ["--print"], "1"),
                                     ("auto", [], "2"), ("4K", ["--memory-limit", "4K"], "2")]:
            output = os.path.join(work, f"eval_{name}.h5")
            r = report(cli, "eval", "--expr", expr, *inputs, "-o", output, *extra, env={"OMP_NUM_THREADS": threads})
            check(r["result"]["streamed"] == (not name.startswith("whole")), f"eval {expr!r} ({name}): streamed {r['result']}")
            with h5py.File(output) as f:
                outputs[name] = f["result"][()]
        whole = outputs["whole"]
        for name in ["whole, one thread", "auto", "4K"]:
            other = outputs[name]
            check(whole.dtype == other.dtype and whole.shape == other.shape and whole.tobytes() == other.tobytes(),
                  f"eval {expr!r}: /result ({name}) differs from the whole-tensor one")


    # Evaluated whole, as the whole evaluation would: a product whose second operand is also
    # needed by rows (streamed, its first block's product failed: [1, 300] times [1, 300]), and
    # a reduction over dim 0 of a product 3 wide (its tiles of 21,845 rows meet the product's
    # 64-row chunks only every 1.4 M rows).
    for expr, bindings in [("mm(sq, sq)", ["sq"]), ("mm(sq, sq) + sq", ["sq"]), ("sum(mm(t, q3), 0)", ["t", "q3"])]:
        inputs = [a for n in bindings for a in ("--input", f"{n}={path}:/{names.get(n, n)}")]
        whole = os.path.join(work, "eval_whole_print.h5")
        report(cli, "eval", "--expr", expr, *inputs, "-o", whole, "--print")
        r = report(cli, "eval", "--expr", expr, *inputs, "-o", os.path.join(work, "eval_whole.h5"))
        check(not r["result"]["streamed"], f"eval {expr!r}: streamed {r['result']}")
        with h5py.File(whole) as a, h5py.File(os.path.join(work, "eval_whole.h5")) as b:
            check(a["result"][()].tobytes() == b["result"][()].tobytes(), f"eval {expr!r}: /result differs")

    # A softmax over dim 0 of a single column is one contiguous lane, whose vectorised sum a fold
    # in row order would not reproduce: held whole, and refused under a small budget.
    r = report(cli, "eval", "--expr", "softmax(s, 0) + 1", "--input", f"s={path}:/s", "-o", os.path.join(work, "eval_dim0.h5"))
    check(not r["result"]["streamed"], f"eval softmax(s, 0) + 1: streamed {r['result']}")
    refused(cli, os.path.join(work, "eval_dim0_4k.h5"), "eval", "--expr", "softmax(s, 0) + 1", "--input", f"s={path}:/s",
            "-o", os.path.join(work, "eval_dim0_4k.h5"), "--memory-limit", "1K", element=r"eval_inputs\.h5:/s")


def check_hot_rows_gradient(cli, work, rng):
    """A coo gradient read by bands whose rows hold many entries each (1.5 M entries on the first
    100 rows of 100,000 x 16: 15,000 a row, about 940 an element, in shuffled order, as a
    frequency-sorted vocabulary's hot ids give them): its blocks were sized at one entry an
    element, so the first block held every entry (72 MiB) under an 8M budget. Now a block that
    holds more than the budget is cut into smaller ones: the peak stays within the budget and
    the process's own ~30 MiB, and the file is the default (whole) run's, byte for byte. The
    peak is not compared under AddressSanitizer (its allocator's peaks are not comparable)."""
    data = os.path.join(work, "hot_rows.h5")
    rows, width, entries = 100_000, 16, 1_500_000
    with h5py.File(data, "w") as f:
        f["p"] = rng.standard_normal((rows, width)).astype(np.float32)
        g = f.create_group("g")
        g.attrs["encoding-type"], g.attrs["encoding-version"] = "coo_tensor", "0.1.0"
        g.attrs["shape"] = np.array([rows, width], dtype=np.int64)
        g["indices"] = np.stack([rng.integers(0, 100, entries), rng.integers(0, width, entries)]).astype(np.int64)
        g["values"] = rng.standard_normal(entries).astype(np.float32)
    written = {}
    for limit in ("8M", None):
        target = os.path.join(work, f"hot_rows_{limit}.h5")
        r = report(cli, "step", data, "-o", target, "--optimizer", "adagrad", "--semantics", "lazy", "--param", "/p",
                   "--grad", "/g", *(["--memory-limit", limit] if limit else []))
        with h5py.File(target) as f:
            written[limit] = [f[name][()].tobytes() for name in ("param", "state/sum", "last_update")]
        os.remove(target)
        if limit:
            with open(cli, "rb") as f:
                sanitized = b"__asan_init" in f.read()
            check(sanitized or r["peak_memory_bytes"] < 8 * MIB + 40 * MIB,
                  f"step with a hot-rows coo gradient under 8M: peak {r['peak_memory_bytes'] / MIB:.0f} MiB")
    check(written["8M"] == written[None], "step with a hot-rows coo gradient under 8M: not the default run's file")
    os.remove(data)


def check_tall_banded_table(cli, work, rng):
    """A shuffled coo of 2 million rows and 60,000 entries, sparsified into dense and evaluated
    under 4M: read by bands, its reader's count of each row's entries takes 2.3 MB (a byte a row
    and 8 bytes a group of 64), where 8 bytes a row (16 MB) refused eval before. Under 64M, whose
    budget its 64 MB dense form fits once but not the three times sparsify's in-memory path
    holds it, sparsify streams (it took 222 MiB whole). The files are the default (whole) runs',
    byte for byte, and the peak stays within the budget and the process's own ~40 MiB, or under
    the budget and 64 MiB (not compared under AddressSanitizer)."""
    data = os.path.join(work, "tall.h5")
    rows, width, entries = 2_000_000, 8, 60_000
    with h5py.File(data, "w") as f:
        write_shuffled_coo(f, "c", (rows, width), entries, rng)
    with open(cli, "rb") as f:
        sanitized = b"__asan_init" in f.read()
    commands = {"sparsify": (["sparsify", data, "-o", "{out}", "--method", "threshold", "--threshold", "0.5"], "c"),
                "eval": (["eval", "--expr", "c * 2", "--input", f"c={data}:/c", "-o", "{out}"], "result")}
    for command, (args, name) in commands.items():
        written = {}
        for limit, most in (("4M", 44 * MIB), ("64M", 128 * MIB), (None, None)):
            target = os.path.join(work, f"tall_{limit}.h5")
            r = report(cli, *[a.replace("{out}", target) for a in args], *(["--memory-limit", limit] if limit else []))
            with h5py.File(target) as f:
                written[limit] = f[name][()].tobytes()
            os.remove(target)
            if limit:
                check(sanitized or r["peak_memory_bytes"] < most,
                      f"{command} of a 2-million-row coo under {limit}: peak {r['peak_memory_bytes'] / MIB:.0f} MiB")
        for limit in ("4M", "64M"):
            check(written[limit] == written[None], f"{command} of a 2-million-row coo under {limit}: not the default run's file")
    os.remove(data)


def check_very_tall_table(cli, work, rng):
    """A shuffled coo of 16 million rows, two columns and 60,000 entries under 64M: its rows'
    counts take 18 MB, and a band read of it held 16-24 bytes a row beside its entries, which no
    budget counted while a band spanned as many rows as its entries allowed (all of them: 634 MiB
    to convert 40 million such rows into csr, 672 MiB into dense, under 64M); converted whole into
    csr, its row pointers were not counted either. Each command writes the default run's file byte
    for byte, its peak within the budget and 64 MiB. Not run under AddressSanitizer, which would
    not compare the peaks and takes a minute over it (check_tall_banded_table reads the same
    paths there)."""
    with open(cli, "rb") as f:
        if b"__asan_init" in f.read():
            return
    data = os.path.join(work, "very_tall.h5")
    with h5py.File(data, "w") as f:
        write_shuffled_coo(f, "c", (16_000_000, 2), 60_000, rng)
    commands = {"convert into csr": (["convert", data, "{out}", "--layout", "csr"], "c"),
                "convert into dense": (["convert", data, "{out}", "--layout", "dense"], "c"),
                "sparsify": (["sparsify", data, "-o", "{out}", "--method", "threshold", "--threshold", "0.5"], "c"),
                "eval c * 2": (["eval", "--expr", "c * 2", "--input", f"c={data}:/c", "-o", "{out}"], "result"),
                "eval sum(c, 1)": (["eval", "--expr", "sum(c, 1)", "--input", f"c={data}:/c", "-o", "{out}"], "result")}
    for command, (args, name) in commands.items():
        digests = {}
        for limit in ("64M", None):
            target = os.path.join(work, "very_tall_out.h5")
            r = report(cli, *[a.replace("{out}", target) for a in args], *(["--memory-limit", limit] if limit else []))
            with h5py.File(target) as f:
                node = f[name]
                parts = [node[k] for k in sorted(node)] if isinstance(node, h5py.Group) else [node]
                digests[limit] = [hashlib.sha256(p[()].tobytes()).hexdigest() for p in parts]
            os.remove(target)
            if limit:
                check(r["peak_memory_bytes"] < 128 * MIB,
                      f"{command} of a 16-million-row coo under {limit}: peak {r['peak_memory_bytes'] / MIB:.0f} MiB")
        check(digests["64M"] == digests[None], f"{command} of a 16-million-row coo under 64M: not the default run's file")
    os.remove(data)


def main(cli, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    data = os.path.join(work, "data.h5")
    rng = np.random.default_rng(5)
    with h5py.File(data, "w") as f:
        f["x"] = rng.standard_normal((200, 100)).astype(np.float32)   # 78 KiB
        f["g"] = rng.standard_normal((200, 100)).astype(np.float32)
        f["small"] = rng.standard_normal((3, 3))
        f["line"] = rng.standard_normal(20000).astype(np.float32)  # one lane for a softmax over dim 0
        coo = f.create_group("g_coo")  # a gradient read whole, or a sparse parameter
        coo.attrs["encoding-type"], coo.attrs["encoding-version"] = "coo_tensor", "0.1.0"
        coo.attrs["shape"] = np.array([200, 100], dtype=np.int64)
        coo["indices"] = np.array([[3, 150], [7, 42]], dtype=np.int64)
        coo["values"] = np.array([0.5, -1.5], dtype=np.float32)
        # Its rows going back, read whole: within 2K (its datasets 1280 and 320 bytes), coalesced
        # not. Read by bands, its reader counts each row's entries (1.6K).
        param = f.create_group("p_coo")
        param.attrs["encoding-type"], param.attrs["encoding-version"] = "coo_tensor", "0.1.0"
        param.attrs["shape"] = np.array([200, 100], dtype=np.int64)
        param["indices"] = np.stack([np.arange(80)[::-1] * 2, np.arange(80)]).astype(np.int64)
        param["values"] = rng.standard_normal(80).astype(np.float32)
        mask = f.create_group("m_coo")  # a sparse --mask, rows ascending: read a block of rows at a time
        mask.attrs["encoding-type"], mask.attrs["encoding-version"] = "coo_tensor", "0.1.0"
        mask.attrs["shape"] = np.array([200, 100], dtype=np.int64)
        mask["indices"] = np.array([[3, 150], [7, 42]], dtype=np.int64)
        mask["values"] = np.array([True, True])
    # A parameter and two gradients of 24 entries each, on different rows: either gradient, read
    # and coalesced, fits 1K (24 x 20 bytes read, 24 x 12 coalesced); both, held at once for
    # their steps, do not. And a masked_tensor of coo data and mask of as many entries, which
    # is only read whole.
    two_grads = os.path.join(work, "two_grads.h5")
    with h5py.File(two_grads, "w") as f:
        f["x"] = rng.standard_normal((200, 100)).astype(np.float32)
        for name, first_row in (("gc_a", 0), ("gc_b", 100)):
            grad = f.create_group(name)
            grad.attrs["encoding-type"], grad.attrs["encoding-version"] = "coo_tensor", "0.1.0"
            grad.attrs["shape"] = np.array([200, 100], dtype=np.int64)
            grad["indices"] = np.stack([first_row + np.arange(24) * 4, np.arange(24) * 4]).astype(np.int64)
            grad["values"] = rng.standard_normal(24).astype(np.float32)
        masked = f.create_group("gm")
        masked.attrs["encoding-type"], masked.attrs["encoding-version"] = "masked_tensor", "0.1.0"
        for part, values in (("data", rng.standard_normal(24).astype(np.float32)), ("mask", np.arange(24) % 3 != 1)):
            grad = masked.create_group(part)
            grad.attrs["encoding-type"], grad.attrs["encoding-version"] = "coo_tensor", "0.1.0"
            grad.attrs["shape"] = np.array([200, 100], dtype=np.int64)
            grad["indices"] = np.stack([100 + np.arange(24) * 4, np.arange(24) * 3]).astype(np.int64)
            grad["values"] = values
    # Previous steps' files whose state is coo (step never writes one; a user's conversion).
    # Rows ascending, it is read by rows, whatever its type; rows going back, it is read once and
    # each block filled from it if its values are float32, as the parameter's, and held whole if
    # float64 (the whole step sums its entries in float64).
    param = rng.standard_normal((200, 100)).astype(np.float32)
    for name, dtype, rows in (("previous_coo_state.h5", np.float32, [3, 150]),
                              ("previous_coo_state_rows_back.h5", np.float32, [150, 3]),
                              ("previous_coo_state64_rows.h5", np.float64, [3, 150]),
                              ("previous_coo_state64.h5", np.float64, [150, 3])):
        with h5py.File(os.path.join(work, name), "w") as f:
            f["param"] = param
            f["state/step"] = np.int64(1)
            f["last_update"] = np.ones(200, dtype=np.int64)
            state = f.create_group("state/sum")
            state.attrs["encoding-type"], state.attrs["encoding-version"] = "coo_tensor", "0.1.0"
            state.attrs["shape"] = np.array([200, 100], dtype=np.int64)
            state["indices"] = np.array([rows, [7, 42]], dtype=np.int64)
            state["values"] = np.array([0.5, 1.5], dtype=dtype)
    # A coo parameter and a coo state of 96 entries each, their rows going back (so each is read
    # whole): either, read and coalesced, fits 4K (96 x 20 bytes read, 96 x 12 coalesced); both
    # at once do not. Read by bands, each one's reader counts its rows' entries (1.6K).
    with h5py.File(os.path.join(work, "previous_coo_both.h5"), "w") as f:
        f["state/step"] = np.int64(1)
        f["last_update"] = np.ones(200, dtype=np.int64)
        for name in ("param", "state/sum"):
            part = f.create_group(name)
            part.attrs["encoding-type"], part.attrs["encoding-version"] = "coo_tensor", "0.1.0"
            part.attrs["shape"] = np.array([200, 100], dtype=np.int64)
            part["indices"] = np.stack([np.arange(96)[::-1] * 2, np.arange(96)]).astype(np.int64)
            part["values"] = rng.random(96).astype(np.float32) + 0.5
    out = lambda name: os.path.join(work, name)

    for command in ["inspect", "convert", "sparsify", "step", "eval", "gradcheck", "run"]:
        text = run(cli, command, "--help").stdout
        check("--memory-limit" in text and "half of the memory available" in text and "cgroup" in text,
              f"{command} --help does not describe --memory-limit auto")

    r = report(cli, "inspect", data, "--count", "--memory-limit", "1K")
    check(r["memory_limit_bytes"] == 1024, "inspect: memory_limit_bytes")
    check(sorted(d["nnz"] for d in r["datasets"]) == [2, 2, 9, 80, 20000, 20000, 20000], f"inspect --count under 1K: {r['datasets']}")
    r = report(cli, "sparsify", data, "-o", out("s.h5"), "--method", "threshold", "--threshold", "1", "--dataset", "/x",
               "--memory-limit", "1K")
    check(r["memory_limit_bytes"] == 1024 and r["datasets"][0]["streamed"], f"sparsify under 1K: {r}")
    r = report(cli, "sparsify", data, "-o", out("s.h5"), "--method", "threshold", "--threshold", "1", "--memory-limit", "auto")
    check(r["memory_limit_bytes"] >= 16 * MIB, f"auto budget {r['memory_limit_bytes']}")
    r = report(cli, "eval", "--expr", "x * 2", "--input", f"x={data}:/x", "-o", out("e.h5"), "--memory-limit", "64M")
    check(r["memory_limit_bytes"] == 64 * MIB, "eval: memory_limit_bytes")
    r = report(cli, "convert", data, out("c.h5"), "--layout", "csr", "--dataset", "/x", "--dataset", "/p_coo",
               "--memory-limit", "64M")
    with h5py.File(data) as f:
        stored = {"/x": int(np.count_nonzero(f["x"][()])), "/p_coo": len(f["p_coo/values"])}
    check(r["memory_limit_bytes"] == 64 * MIB
          and [(e["path"], e["copied"], e["stored_before"]) for e in r["elements"]]
          == [("/x", False, stored["/x"]), ("/p_coo", False, stored["/p_coo"])], f"convert --json: {r}")
    with h5py.File(out("c.h5")) as f:
        check([e["stored_after"] for e in r["elements"]] == [len(f["x/data"]), len(f["p_coo/data"])],
              f"convert --json: stored_after is not what it wrote: {r}")
    r = report(cli, "gradcheck", "--expr", "x * x", "--input", f"x={data}:/small", "--memory-limit", "64M")
    check(r["memory_limit_bytes"] == 64 * MIB, "gradcheck: memory_limit_bytes")
    r = report(cli, "step", data, "-o", out("st.h5"), "--optimizer", "sgd", "--semantics", "dense", "--param", "/x",
               "--grad", "/g", "--lr", "0.1", "--memory-limit", "64M")
    check(r["memory_limit_bytes"] == 64 * MIB, "step: memory_limit_bytes")

    refused(cli, out("e2.h5"), "eval", "--expr", "softmax(line * 2, 0) - 1", "--input", f"line={data}:/line", "-o",
            out("e2.h5"), "--memory-limit", "1K", element=r"data\.h5:/line")
    refused(cli, out("e3.h5"), "eval", "--expr", "x * 2", "--input", f"x={data}:/x", "-o", out("e3.h5"), "--print",
            "--memory-limit", "1K")
    check_eval_streams(cli, work, rng)
    r = report(cli, "step", data, "-o", out("st2.h5"), "--optimizer", "sgd", "--semantics", "dense", "--param", "/x",
               "--grad", "/g", "--lr", "0.1", "--memory-limit", "1K")
    check(r["streamed"] and r["memory_limit_bytes"] == 1024, f"step under 1K streams: {r}")
    # Resuming from a coo state streams; from one held whole, the parameter is read whole, and refused.
    for state in ("previous_coo_state.h5", "previous_coo_state_rows_back.h5", "previous_coo_state64_rows.h5"):
        r = report(cli, "step", data, "-o", out("st3s.h5"), "--optimizer", "adagrad", "--semantics", "dense",
                   "--state-from", out(state), "--grad", "/g", "--memory-limit", "1K")
        check(r["streamed"], f"step resumed from {state} under 1K streams: {r}")
    refused(cli, out("st3.h5"), "step", data, "-o", out("st3.h5"), "--optimizer", "adagrad", "--semantics", "dense",
            "--state-from", out("previous_coo_state64.h5"), "--grad", "/g", "--memory-limit", "1K",
            element=r"previous_coo_state64\.h5:/param")
    # A coo converted whole (its rows going back) holds what it reads, its coalescing's copies and
    # the result at once, which 2K does not hold though each part read fits: into dense it is
    # densified from bands of rows (each a scan of it, held coalesced), and refused under 128
    # bytes (its reader's count of its 200 rows' entries, 240 bytes, does not fit); into csr it converts in
    # bands of rows; its rows ascending, a block of rows at a time.
    run(cli, "convert", data, out("c_coo.h5"), "--layout", "dense", "--dataset", "/p_coo", "--memory-limit", "2K")
    run(cli, "convert", data, out("c_whole.h5"), "--layout", "dense", "--dataset", "/p_coo")
    with h5py.File(out("c_coo.h5")) as a, h5py.File(out("c_whole.h5")) as b:
        check(a["p_coo"][()].tobytes() == b["p_coo"][()].tobytes(), "convert /p_coo into dense under 2K: not the whole's")
    os.remove(out("c_coo.h5"))
    os.remove(out("c_whole.h5"))
    r = run(cli, "convert", data, out("c_coo.h5"), "--layout", "dense", "--dataset", "/p_coo", "--memory-limit", "128",
            code=2)
    check(re.fullmatch(r"error: .*data\.h5:/p_coo: counting its rows' entries needs 240 B in memory, more than "
                       r"the memory limit of 128 B .*\n", r.stderr), f"convert /p_coo into dense under 128 bytes: {r.stderr!r}")
    check(not os.path.exists(out("c_coo.h5")), "convert /p_coo into dense under 128 bytes: left an output")
    for name in ("/p_coo", "/g_coo"):
        run(cli, "convert", data, out("c_coo.h5"), "--layout", "csr", "--dataset", name, "--memory-limit", "2K")
        run(cli, "convert", data, out("c_whole.h5"), "--layout", "csr", "--dataset", name)
        with h5py.File(out("c_coo.h5")) as a, h5py.File(out("c_whole.h5")) as b:
            check(all(np.array_equal(a[name][part][()], b[name][part][()]) for part in ("data", "indices", "indptr")),
                  f"convert {name} under 2K: not the whole conversion's csr")
    # A coo parameter and state whose rows go back, which held whole would not fit 4K together,
    # are read in bands of rows (a quarter of the budget each): the file the default budget writes.
    for limit in ("4K", None):
        r = report(cli, "step", data, "-o", out(f"st3_{limit}.h5"), "--optimizer", "adagrad", "--semantics", "dense",
                   "--state-from", out("previous_coo_both.h5"), "--grad", "/g", *(["--memory-limit", limit] if limit else []))
        check(r["streamed"], f"step resumed from a coo parameter and state under {limit}: {r}")
    with h5py.File(out("st3_4K.h5")) as a, h5py.File(out("st3_None.h5")) as b:
        for name in ("param", "state/sum", "last_update"):
            check(np.array_equal(a[name][()], b[name][()]), f"step resumed from coo_both under 4K: /{name} differs")
    # The gradients read whole are held together for their steps, so they must fit together:
    # each alone streams read whole. Of both under 1K, the second is read by bands (a block's
    # rows at a time: tested in step_cases.py and larger_than_memory_cases.py), its reader's count
    # of its 200 rows' entries (240 bytes) beside the first: the default run's file. Under 900
    # bytes the first read whole (768 bytes) would leave the second's counts no room: both are read
    # by bands (the first was read whole and the step refused until stop 56). Under 400 bytes, the
    # second's counts do not fit beside the first's: refused, naming it. A masked one, which has no
    # bands, is refused beside the first, naming it. Under dense semantics (each block filled from
    # them) and lazy (patterns coalesced once).
    for semantics in ("dense", "lazy"):
        common = ["--optimizer", "sgd", "--semantics", semantics, "--param", "/x", "--lr", "0.1"]
        for grad in ("/gc_a", "/gc_b"):
            r = report(cli, "step", two_grads, "-o", out("st8.h5"), "--grad", grad, "--memory-limit", "1K", *common)
            check(r["streamed"], f"step of the coo gradient {grad} alone under 1K streams: {r}")
        for limit, name in (("1K", "st9_1K.h5"), ("900", "st9_900.h5"), (None, "st9_whole.h5")):
            run(cli, "step", two_grads, "-o", out(name), "--grad", "/gc_a", "--grad", "/gc_b", *common,
                *(["--memory-limit", limit] if limit else []))
        for limit in ("1K", "900"):
            with h5py.File(out(f"st9_{limit}.h5")) as a, h5py.File(out("st9_whole.h5")) as b:
                check(all(a[n][()].tobytes() == b[n][()].tobytes() for n in ("param", "last_update")),
                      f"step of both gradients under {limit} ({semantics}): differs")
        refused(cli, out("st9.h5"), "step", two_grads, "-o", out("st9.h5"), "--grad", "/gc_a", "--grad", "/gc_b",
                "--memory-limit", "400", *common, limit="400 B",
                element=r"two_grads\.h5:/gc_b: counting its rows' entries beside the elements held before it")
        refused(cli, out("st9.h5"), "step", two_grads, "-o", out("st9.h5"), "--grad", "/gc_a", "--grad", "/gm",
                "--memory-limit", "1K", *common,
                element=r"two_grads\.h5:/gm: coalescing it beside the elements read whole before it")
    # A sparse --mask streams: its rows read and densified a block at a time.
    r = report(cli, "step", data, "-o", out("st6.h5"), "--optimizer", "sgd", "--semantics", "masked", "--param", "/x",
               "--grad", "/g", "--mask", "/m_coo", "--lr", "0.1", "--memory-limit", "1K")
    check(r["streamed"], f"step with a coo mask under 1K streams: {r}")
    # What an element read whole holds while it is coalesced must fit too: refused, not over it;
    # a coo parameter whose rows go back is read in bands of rows instead (under 2K), and refused
    # where its reader's count of each row's entries does not fit (under 128 bytes), naming it.
    r = report(cli, "step", data, "-o", out("st7.h5"), "--optimizer", "sgd", "--semantics", "dense",
               "--param", "/p_coo", "--grad", "/x", "--lr", "0.1", "--memory-limit", "2K")
    check(r["streamed"], f"step of a coo parameter whose rows go back under 2K: {r}")
    r = run(cli, "step", data, "-o", out("st7_128.h5"), "--optimizer", "sgd", "--semantics", "dense",
            "--param", "/p_coo", "--grad", "/x", "--lr", "0.1", "--memory-limit", "128", code=2)
    check(re.search(r"^error: .*data\.h5:/p_coo: counting its rows' entries needs 240 B in memory, more than the "
                    r"memory limit of 128 B", r.stderr), f"step of /p_coo under 128 bytes: {r.stderr!r}")
    check(not os.path.exists(out("st7_128.h5")), "step of /p_coo under 128 bytes: left an output")
    # A coo parameter streams: its rows ascending, read a block of rows at a time.
    r = report(cli, "step", data, "-o", out("st5.h5"), "--optimizer", "sgd", "--semantics", "dense", "--param", "/g_coo",
               "--grad", "/x", "--lr", "0.1", "--memory-limit", "1K")
    check(r["streamed"], f"step of a coo parameter under 1K streams: {r}")
    # A coo gradient under dense semantics streams: each block is filled from its entries.
    r = report(cli, "step", data, "-o", out("st4.h5"), "--optimizer", "sgd", "--semantics", "dense", "--param", "/x",
               "--grad", "/g_coo", "--lr", "0.1", "--memory-limit", "1K")
    check(r["streamed"], f"step of a coo gradient under dense semantics under 1K streams: {r}")
    refused(cli, out("none"), "gradcheck", "--expr", "x * x", "--input", f"x={data}:/x", "--memory-limit", "1K")

    mixed = out("mixed.h5")
    with h5py.File(mixed, "w") as f:
        m = rng.standard_normal((300, 20))
        m[m < 0.5] = 0
        m[7] = 0
        f["x"] = m.astype(np.float32)
        f["cube"] = np.where(rng.random((60, 5, 4)) < 0.3, rng.standard_normal((60, 5, 4)), 0)
        f["ints"] = rng.integers(-1, 2, (100, 6)).astype(np.int32)
    for layout, limits in [("dense", ["3K"]), ("csr", ["3K"]), ("coo", ["3K"]), ("row_sparse", ["3K"]),
                           ("csc", ["3K", "16K"])]:
        picks = ["--dataset", "/x", "--dataset", "/ints"] if layout in ("csr", "csc") else []
        run(cli, "sparsify", mixed, "-o", out("whole.h5"), "--method", "threshold", "--threshold", "0", "--layout", layout,
            "--save-state", *picks)
        for limit in [None, *limits]:
            what = f"convert {layout} {limit or 'by default'}"
            streamed = run(cli, "convert", mixed, out("blocks.h5"), "--layout", layout, *picks,
                           *(["--memory-limit", limit] if limit else []))
            check("stored values" in streamed.stdout, f"{what}: {streamed.stdout!r}")
            with h5py.File(out("whole.h5")) as fw, h5py.File(out("blocks.h5")) as fb:
                names = []
                fw.visit(lambda name: None if name.startswith("sparsifier_state") else names.append(name))
                other = []
                fb.visit(other.append)
                check(names == other, f"{what}: {names} vs {other}")
                for name in names:
                    a, b = fw[name], fb[name]
                    check(sorted(a.attrs) == sorted(b.attrs), f"{what} {name}: attributes")
                    if isinstance(a, h5py.Dataset):
                        check(a.dtype == b.dtype and a.shape == b.shape and a[()].tobytes() == b[()].tobytes(),
                              f"{what} {name}: differs from the whole-tensor conversion")

    batch = out("batch.json")
    with open(batch, "w") as f:
        json.dump({"version": 1, "inputs": ["data.h5"], "datasets": ["/x"], "memory_limit": "2K",
                   "sparsify": {"method": "threshold", "threshold": 1.0}, "output": {"path": "out/{stem}.h5"}}, f)
    r = report(cli, "run", batch)
    check(r["memory_limit_bytes"] == 2048 and r["failed"] == 0, f"run with memory_limit 2K: {r}")
    r = report(cli, "run", batch, "--memory-limit", "3K")
    check(r["memory_limit_bytes"] == 3072, "run --memory-limit overrides the batch file")
    with h5py.File(data) as f, h5py.File(out("out/data.h5")) as g:
        x = f["x"][()]
        check(np.array_equal(g["x"][()], np.where(np.abs(x) >= 1.0, x, 0)), "batch output under 3K differs")
    check_hot_rows_gradient(cli, work, rng)
    check_tall_banded_table(cli, work, rng)
    check_very_tall_table(cli, work, rng)
    print("ok: --memory-limit on every subcommand, budgets reported and enforced")


if __name__ == "__main__":
    main(*sys.argv[1:3])
