#!/usr/bin/python3
"""Fault classes found by fuzzing the CLI, one case each:

    fault_cases.py SPARSITY WORKDIR CASE

Every case builds its own inputs under WORKDIR/CASE and checks the contract: a clear one-line
`error:` naming the file and dataset, exit 1/2/3 (never 70, never a crash), no output or
temporary file left, inputs unchanged, a batch going on past an input it cannot process.
Exit 77 means the case cannot run here (e.g. the disk-full case needs root to mount a tmpfs)."""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

from coo_files import write_shuffled_coo
from scratch_disks import mounted, small_disk, unmount_under

SKIP = 77


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(cli, *args, code, timeout=20):
    r = subprocess.run([cli, *args], capture_output=True, text=True, timeout=timeout)
    check(r.returncode == code, f"{' '.join(args)}: exit {r.returncode}, expected {code}; stderr: {r.stderr}")
    return r


def leftovers(folder):
    """Temporary files of our writers left in `folder` or below."""
    return [os.path.join(d, n) for d, _, names in os.walk(folder) for n in names if n.startswith(".sw-") or ".tmp" in n]


def one_error(r, pattern):
    errors = [line for line in r.stderr.splitlines() if line.startswith("error: ")]
    check(len(errors) == 1, f"expected one error line, got {r.stderr!r}")
    check(re.search(pattern, errors[0]), f"error {errors[0]!r} does not match {pattern!r}")
    return errors[0]


def link_cycle(cli, work):
    """A group holding a hard link to itself: every command lists each object once and notes
    the repeating link, instead of walking forever."""
    path = os.path.join(work, "loop.h5")
    with h5py.File(path, "w") as f:
        g = f.create_group("g")
        g["x"] = np.arange(6.0).reshape(2, 3)
        g["loop"] = g
        g["root"] = f
        f["z_alias"] = g["x"]  # listed after /g/x: h5py files list links by name
        f["names"] = np.array([b"a", b"b"])
        f["dangling"] = h5py.SoftLink("/nowhere")
    before = digest(path)
    note_cycle = "note: .*loop.h5:/g/loop: skipped: this link repeats the object already listed as /g \\(a link cycle\\)"
    r = run(cli, "inspect", path, code=0)
    check(r.stdout.count("/g/x") == 1 and "/z_alias" not in r.stdout, f"inspect lists /g/x once: {r.stdout}")
    check(re.search(note_cycle, r.stderr), f"inspect notes the cycle: {r.stderr}")
    check(re.search("note: .*:/g/root: skipped: this link repeats the object already listed as / \\(a link cycle\\)", r.stderr),
          f"inspect notes the link to the root: {r.stderr}")
    check(re.search("note: .*:/z_alias: skipped: this link repeats the object already listed as /g/x$", r.stderr, re.M),
          f"inspect notes the alias: {r.stderr}")
    out = os.path.join(work, "converted.h5")
    r = run(cli, "convert", path, out, "--layout", "coo", code=0)
    check(re.search(note_cycle, r.stderr), f"convert notes the cycle: {r.stderr}")
    check(re.search("note: .*:/names: skipped: not a numeric or bool dataset", r.stderr), f"convert notes /names: {r.stderr}")
    check(re.search("note: .*:/dangling: skipped: the link points at no object", r.stderr),
          f"convert notes the dangling link: {r.stderr}")
    with h5py.File(out, "r") as f:
        check(sorted(f["g"].keys()) == ["x"] and "z_alias" not in f, f"convert writes /g/x once: {list(f['g'].keys())}")
    out = os.path.join(work, "sparsified.h5")
    r = run(cli, "sparsify", path, "-o", out, "--method", "threshold", "--threshold", "1", code=0)
    check(re.search(note_cycle, r.stderr), f"sparsify notes the cycle: {r.stderr}")
    batch = os.path.join(work, "loop.json")
    with open(batch, "w") as f:
        json.dump({"version": 1, "inputs": ["loop.h5"], "sparsify": {"method": "threshold", "threshold": 1},
                   "output": {"path": "out/{name}"}}, f)
    r = run(cli, "run", batch, code=0)
    check(re.search(note_cycle, r.stderr), f"run notes the cycle: {r.stderr}")
    check(digest(path) == before, "the input was modified")


def huge_dataset(cli, work):
    """A dataset declaring 2^62 elements with nothing written: a clear exit-3 error naming it
    (never 70), `inspect --count` counts the written chunks only, and `run` goes on past it."""
    huge = os.path.join(work, "a_huge.h5")
    with h5py.File(huge, "w") as f:
        f.create_dataset("x", shape=(2**31, 2**31), dtype="f8", chunks=(1, 1024))
        written = f.create_dataset("w", shape=(2**31, 2**31), dtype="f4", chunks=(1, 1024))
        written[5, 0:2000] = np.arange(2000.0)
        f.create_dataset("ones", shape=(2**20, 2**20), dtype="f4", chunks=(64, 64), fillvalue=1.5)[0:10, 0:10] = 0
        coo = f.create_group("t")
        coo.attrs["encoding-type"] = "coo_tensor"
        coo.attrs["encoding-version"] = "0.1.0"
        coo.attrs["shape"] = np.array([2**31, 2**31], dtype="i8")
        coo["indices"] = np.array([[1], [2]], dtype="i8")
        coo["values"] = np.array([1.0])
    before = digest(huge)
    too_big = "a_huge\\.h5:{}: declares 4611686018427387904 elements; holding them takes .* EiB, more than this machine's memory"
    out = os.path.join(work, "out.h5")
    for args in (["convert", huge, out, "--layout", "csr", "--dataset", "/x"],
                 ["sparsify", huge, "-o", out, "--method", "threshold", "--threshold", "1", "--dataset", "/x"],
                 ["eval", "--expr", "x * 2", "--input", f"x={huge}:/x", "-o", out]):
        one_error(run(cli, *args, code=3), too_big.format("/x"))
    for args in (["convert", huge, out, "--layout", "dense", "--dataset", "/t"],
                 ["sparsify", huge, "-o", out, "--method", "n-m", "--dataset", "/t"],
                 ["eval", "--expr", "x + 1", "--input", f"x={huge}:/t", "-o", out]):
        one_error(run(cli, *args, code=3), too_big.format("/t"))
    check(not os.path.exists(out), "an output was written")
    r = run(cli, "inspect", "--count", "--json", huge, code=0)
    counts = {d["path"]: d["nnz"] for d in json.loads(r.stdout)["datasets"]}
    check(counts == {"/x": 0, "/w": 1999, "/ones": 2**40 - 100, "/t": 1}, f"inspect --count: {counts}")
    good = os.path.join(work, "b_good.h5")
    with h5py.File(good, "w") as f:
        f["x"] = np.arange(12.0).reshape(3, 4)
    batch = os.path.join(work, "batch.json")
    with open(batch, "w") as f:
        json.dump({"version": 1, "inputs": ["a_huge.h5", "b_good.h5"], "datasets": ["/x"],
                   "sparsify": {"method": "threshold", "threshold": 1}, "output": {"path": "out/{name}"}}, f)
    r = run(cli, "run", batch, code=1)
    one_error(r, too_big.format("/x"))
    check(os.path.exists(os.path.join(work, "out", "b_good.h5")), "run went on to the good input")
    check(not os.path.exists(os.path.join(work, "out", "a_huge.h5")), "run wrote an output for the huge input")
    check("1 of 2 inputs done" in r.stdout, f"run report: {r.stdout}")
    check(digest(huge) == before, "the input was modified")


def good_input(work, name="good.h5"):
    path = os.path.join(work, name)
    with h5py.File(path, "w") as f:
        f["x"] = np.arange(12.0).reshape(3, 4)
    return path


def batch_json(cli, work):
    """BATCH.json values the JSON parser or the file system refuse: exit 2 naming the JSON path,
    with and without --dry-run (was 70), and nothing written."""
    good = good_input(work)
    cases = {
        "overflow.json": ('{"version": 1, "inputs": ["good.h5"], "sparsify": {"method": "threshold", "threshold": -1e400},'
                          ' "output": {"path": "out/{name}"}}',
                          "overflow\\.json: \\$\\.sparsify\\.threshold must be a number within double's range .* but got '-1e400'"),
        "overflow_in_array.json": ('{"version": 1, "inputs": ["good.h5"], "datasets": ["/x"], "step": {"optimizer": "sgd",'
                                   ' "semantics": "dense", "param": "/x", "grads": ["/x"], "lr": [1, 2e999]},'
                                   ' "output": {"path": "out/{name}"}}',
                                   "\\$\\.step\\.lr\\[1\\] must be a number within double's range"),
        "long_path.json": (json.dumps({"version": 1, "inputs": ["good.h5"], "sparsify": {"method": "threshold", "threshold": 1},
                                       "output": {"path": "out/" + "a" * 5000 + ".h5"}}),
                           "long_path\\.json: \\$\\.output\\.path gives .*good\\.h5 an output path that must be at most 4095 bytes"
                           " long \\(PATH_MAX\\), but has 50"),
        "long_name.json": (json.dumps({"version": 1, "inputs": ["good.h5"], "sparsify": {"method": "threshold", "threshold": 1},
                                       "output": {"path": "out/" + "a" * 300 + ".h5"}}),
                           "\\$\\.output\\.path gives .* an output path that must have names of at most 255 bytes \\(NAME_MAX\\), but"
                           " 'aaaaaaaaaaaaaaaa\\.\\.\\.' has 303"),
        "nul_path.json": (json.dumps({"version": 1, "inputs": ["good.h5"], "sparsify": {"method": "threshold", "threshold": 1},
                                      "output": {"path": "out/cut\u0000tail.h5"}}),
                          "nul_path\\.json: \\$\\.output\\.path must not contain a NUL character \\(\\\\u0000\\), but it has one at"
                          " byte 7"),
        "nul_input.json": (json.dumps({"version": 1, "inputs": ["good.h5\u0000.bak"], "sparsify": {"method": "threshold",
                                       "threshold": 1}, "output": {"path": "out/{name}"}}),
                           "\\$\\.inputs\\[0\\] must not contain a NUL character"),
    }
    before = digest(good)
    for name, (text, pattern) in cases.items():
        batch = os.path.join(work, name)
        with open(batch, "w") as f:
            f.write(text)
        for dry in ([], ["--dry-run"]):
            r = run(cli, "run", *dry, batch, code=2)
            one_error(r, pattern)
            check(not r.stdout, f"{name}: stdout must be empty, got {r.stdout!r}")
    check(not os.path.exists(os.path.join(work, "out")), "an output was written")
    check(digest(good) == before, "the input was modified")


def wait_for_temporary(process, folder, seconds=20):
    """Waits until `process` has a temporary output file in `folder`: it is writing."""
    prefix = f".sw-tmp-{process.pid}-"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(n.startswith(prefix) and os.path.getsize(os.path.join(folder, n)) > 1 << 16 for n in os.listdir(folder)):
            return
        check(process.poll() is None, f"the writer ended (exit {process.returncode}) before writing")
        time.sleep(0.02)
    raise SystemExit("FAIL: no temporary file appeared")


def signals(cli, work):
    """SIGTERM or SIGINT (Ctrl-C) during a long write: the temporary file is removed and the
    process ends by the signal (shell status 143 / 130)."""
    big = os.path.join(work, "big.h5")
    with h5py.File(big, "w") as f:
        f["x"] = np.random.default_rng(0).standard_normal((2048, 2048))
    batch = os.path.join(work, "batch.json")
    with open(batch, "w") as f:
        json.dump({"version": 1, "inputs": ["big.h5"], "sparsify": {"method": "threshold", "threshold": 0.1},
                   "step": {"optimizer": "adagrad", "semantics": "dense", "param": "/x", "grads": ["/x"]},
                   "output": {"path": "out/{name}", "gzip": 9}}, f)
    os.makedirs(os.path.join(work, "out"))
    commands = {
        "convert": ([cli, "convert", big, os.path.join(work, "converted.h5"), "--layout", "csr", "--gzip", "9"], work),
        "run": ([cli, "run", batch], os.path.join(work, "out")),
    }
    for name, (command, folder) in commands.items():
        for sig in (signal.SIGTERM, signal.SIGINT):
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            wait_for_temporary(process, folder)
            process.send_signal(sig)
            process.communicate(timeout=20)
            check(process.returncode == -sig, f"{name}: ended with {process.returncode}, expected -{int(sig)} ({sig.name})")
            check(not leftovers(work), f"{name} after {sig.name}: temporary files left: {leftovers(work)}")
    check(not os.path.exists(os.path.join(work, "converted.h5")), "an output was written")


def killed(cli, work):
    """SIGKILL (the OOM killer's signal) runs no handler: the temporary file stays. The next
    command that writes into that folder removes it once it is a minute old, since its process
    is gone; a young one, a live process's, another host's and a file of another naming stay."""
    big = os.path.join(work, "big.h5")
    with h5py.File(big, "w") as f:
        f["x"] = np.random.default_rng(0).standard_normal((2048, 2048))
    out = os.path.join(work, "out")
    os.makedirs(out)
    process = subprocess.Popen([cli, "convert", big, os.path.join(out, "converted.h5"), "--layout", "csr", "--gzip", "9"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_for_temporary(process, out)
    process.kill()
    process.communicate(timeout=20)
    stale = [n for n in os.listdir(out) if n.startswith(f".sw-tmp-{process.pid}-")]
    check(len(stale) == 1, f"SIGKILL: expected the temporary file to stay, found {os.listdir(out)}")
    host = stale[0].split("-", 4)[4]
    old = time.time() - 120
    kept = {
        "young": stale[0],  # aged below: only after the first run
        "live": f".sw-tmp-{os.getpid()}-0-{host}",
        "other host": f".sw-tmp-{process.pid}-1-{host}x",
        "other naming": f".sw-tmp-{process.pid}-2",
    }
    for name in list(kept.values())[1:]:
        with open(os.path.join(out, name), "w") as f:
            f.write("x")
        os.utime(os.path.join(out, name), (old, old))
    good = good_input(work)
    run(cli, "convert", good, os.path.join(out, "first.h5"), "--layout", "coo", code=0)
    check(set(kept.values()) <= set(os.listdir(out)), f"a file that must stay was removed: {sorted(os.listdir(out))}")
    os.utime(os.path.join(out, stale[0]), (old, old))
    run(cli, "convert", good, os.path.join(out, "second.h5"), "--layout", "coo", code=0)
    names = set(os.listdir(out))
    check(stale[0] not in names, f"the killed process's temporary file was not removed: {sorted(names)}")
    for what, name in list(kept.items())[1:]:
        check(name in names, f"{what}: {name} was removed")
        os.remove(os.path.join(out, name))


def long_name(cli, work):
    """Output names of 236-255 bytes are legal and written (the temporary name is short); one of
    256 is refused with exit 2, never cut."""
    good = good_input(work)
    for length in (236, 255):
        out = os.path.join(work, "o" * (length - 3) + ".h5")
        run(cli, "convert", good, out, "--layout", "coo", code=0)
        check(os.path.exists(out), f"the {length}-byte output name was not written")
        os.remove(out)
        run(cli, "sparsify", good, "-o", out, "--method", "threshold", "--threshold", "1", code=0)
        check(os.path.exists(out), f"sparsify: the {length}-byte output name was not written")
        os.remove(out)
        batch = os.path.join(work, "batch.json")
        with open(batch, "w") as f:
            json.dump({"version": 1, "inputs": ["good.h5"], "sparsify": {"method": "threshold", "threshold": 1},
                       "step": {"optimizer": "adagrad", "semantics": "dense", "param": "/x", "grads": ["/x"]},
                       "output": {"path": os.path.basename(out)}}, f)
        run(cli, "run", batch, code=0)
        check(os.path.exists(out), f"run: the {length}-byte output name was not written")
        os.remove(out)
    out = os.path.join(work, "o" * 253 + ".h5")
    one_error(run(cli, "convert", good, out, "--layout", "coo", code=2),
              "output path .* must have names of at most 255 bytes \\(NAME_MAX\\), but 'oooooooooooooooo\\.\\.\\.' has 256")
    check(not any(n.startswith("ooo") for n in os.listdir(work)), "a cut name was written")


def disk_full(cli, work):
    """Writing to a full disk (a 2 MB tmpfs): exit 3 with the output and dataset named, no crash
    in HDF5's exit handler (was a segfault, 139), no temporary file left; over the memory budget,
    an element too large for the disk to stream is refused naming the disk. Needs root to mount."""
    if os.geteuid() != 0:
        print("skipped: mounting a tmpfs needs root")
        sys.exit(SKIP)
    full = os.path.join(work, "full")
    with mounted(["-t", "tmpfs", "-o", "size=2m", "tmpfs"], full) as ready:
        if not ready:
            sys.exit(SKIP)
        source = os.path.join(work, "mid.h5")
        with h5py.File(source, "w") as f:
            f["x"] = np.random.default_rng(0).standard_normal((1000, 1000))
            f["small"] = np.eye(4)
        out = os.path.join(full, "o.h5")
        # The output's place alone: not the input's before it ("mid.h5:/x: .../o.h5:/x: ...").
        disk_full_error = "^error: " + re.escape(out) + ":/(x|result|param|state)[/a-z_]*: cannot write (values|rows) \\(disk full\\?\\)$"
        commands = [["convert", source, out, "--layout", layout] for layout in ("coo", "csr", "csc", "row_sparse", "dense")]
        commands += [["sparsify", source, "-o", out, "--method", "threshold", "--threshold", "0.1", "--layout", layout]
                     for layout in ("csr", "dense", "masked")]
        commands += [["sparsify", source, "-o", out, "--method", "data-norm", "--sparsity-level", "0.5", "--block", "1x4"],
                     ["eval", "--expr", "x * 2", "--input", f"x={source}:/x", "-o", out],
                     ["eval", "--expr", "softmax(x, 0) * 2", "--input", f"x={source}:/x", "-o", out],
                     ["step", source, "-o", out, "--param", "/x", "--grad", "/x", "--optimizer", "adam", "--semantics", "dense"]]
        for args in commands:
            one_error(run(cli, *args, code=3), disk_full_error)
            check(not os.listdir(full), f"{args[0]}: files left on the full disk: {os.listdir(full)}")
        # Copying the elements not converted (--keep-others) is refused before it starts when it
        # cannot fit (HDF5 1.10's H5Ocopy crashes on a full disk), naming the element and the disk.
        one_error(run(cli, "convert", source, out, "--layout", "coo", "--dataset", "/small", "--keep-others", code=3),
                  "o\\.h5:/x: copying it needs 7\\.6 MiB, more than the .* free on the output's file system")
        check(not os.listdir(full), f"convert --keep-others: files left on the full disk: {os.listdir(full)}")
        # Over the memory budget, an element streams only when its dense size fits the disk: the
        # disk, not the budget ("raise the memory limit" would only move the failure), is named.
        no_room = "mid\\.h5:/x: streaming it writes up to 7\\.6 MiB, more than the .* free on the output's file system"
        for args in [["sparsify", source, "-o", out, "--method", "threshold", "--threshold", "0.1"],
                     ["convert", source, out, "--layout", "csr"]]:
            one_error(run(cli, *args, "--memory-limit", "1M", code=3), no_room)
            check(not os.listdir(full), f"{args[0]} over the budget: files left on the full disk: {os.listdir(full)}")
        one_error(run(cli, "eval", "--expr", "x * 2", "--input", f"x={source}:/x", "-o", out, "--memory-limit", "1M", code=3),
                  "expression 'x \\* 2': streaming it writes up to 7\\.6 MiB, more than the .* free")
        batch = os.path.join(work, "batch.json")
        with open(batch, "w") as f:
            json.dump({"version": 1, "inputs": ["mid.h5"], "sparsify": {"method": "threshold", "threshold": 0.1},
                       "output": {"path": "full/{name}", "layout": "coo"}}, f)
        r = run(cli, "run", batch, code=1)
        one_error(r, "mid\\.h5:/x[/a-z]*: cannot write values \\(disk full\\?\\)")
        check(not os.listdir(full), f"run: files left on the full disk: {os.listdir(full)}")


def preloading_disk_fills(folder, capacity):
    """The environment in which files under `folder` have a disk of `capacity` bytes
    (tests/cli/disk_fills.c, built by CMake and named in $SW_DISK_FILLS); None when the library
    was not built."""
    library = os.environ.get("SW_DISK_FILLS")
    if not library or not os.path.exists(library):
        return None
    env = dict(os.environ, LD_PRELOAD=library, SW_FILL_PATH=folder, SW_FILL_CAPACITY=str(capacity))
    # Under ASan the sanitizer's runtime must come first among preloaded libraries unless told.
    env["ASAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "verify_asan_link_order=0"]))
    return env


def disk_fills_mid_write(cli, work):
    """The disk fills after the output's first blocks are written (no up-front space check can
    see that coming): every subcommand that writes exits 3 with one error line that names the
    output's dataset and only it (the streamed sparsify put the input's name before it), leaves
    no output or temporary file and does not touch its input."""
    source = os.path.join(work, "source.h5")
    rng = np.random.default_rng(5)
    with h5py.File(source, "w") as f:
        f["x"] = rng.standard_normal((2048, 512)).astype("float32")  # 4 MiB, many blocks under 1M
        g = np.zeros((2048, 512), "float32")
        g[rng.integers(0, 2048, 300)] = 1
        f["g"] = g
    before = digest(source)
    folder = os.path.join(work, "filling")
    os.makedirs(folder)
    env = preloading_disk_fills(folder, 512 * 1024)
    if env is None:
        print("skipped: tests/cli/disk_fills.c was not built ($SW_DISK_FILLS)")
        sys.exit(SKIP)
    out = os.path.join(folder, "o.h5")
    sparsify = ["sparsify", source, "-o", out, "--memory-limit", "1M"]
    commands = [sparsify + ["--method", "threshold", "--threshold", "0.5", "--layout", layout]
                for layout in ("dense", "masked", "coo", "csr", "csc", "row_sparse")]
    commands += [sparsify + method for method in (["--method", "data-norm", "--sparsity-level", "0.5", "--block", "1x4"],
                                                  ["--method", "n-m", "--n", "2", "--m", "4"],
                                                  ["--method", "row-norm", "--keep", "0.5"])]
    commands += [["convert", source, out, "--layout", layout, "--memory-limit", "1M"] for layout in ("dense", "csr", "coo")]
    commands += [["eval", "--expr", expr, "--input", f"x={source}:/x", "-o", out, "--memory-limit", "1M"]
                 for expr in ("x * 2", "softmax(x, 0) * 2", "softmax(x, 1) + x")]
    commands += [["step", source, "-o", out, "--param", "/x", "--grad", "/g", "--optimizer", "adam", "--semantics", semantics,
                  "--memory-limit", "1M"] for semantics in ("dense", "lazy")]
    located = re.compile("^error: " + re.escape(out) + ":/[A-Za-z_/]+: cannot write [a-z ]+ \\(disk full\\?\\)$")
    for args in commands:
        r = subprocess.run([cli, *args], capture_output=True, text=True, timeout=60, env=env)
        what = " ".join(args[:1] + args[-6:])
        check(r.returncode == 3, f"{what}: exit {r.returncode}, expected 3; stderr: {r.stderr}")
        errors = [line for line in r.stderr.splitlines() if line.startswith("error: ")]
        check(len(errors) == 1 and located.match(errors[0]), f"{what}: error lines {errors}")
        check(not os.listdir(folder), f"{what}: left {os.listdir(folder)}")
    # The disk fills as the file closes, after every dataset is written: the close's flush fails.
    # HDF5 1.10 then kept the file half closed and crashed at exit (139). Capacities a little
    # under the output's size land in that window, or just before it.
    small = os.path.join(work, "small.h5")
    with h5py.File(small, "w") as f:
        f["x"] = rng.standard_normal((256, 256)).astype("float32")
    reference = os.path.join(work, "reference.h5")
    run(cli, "convert", small, reference, "--layout", "dense", code=0)
    size = os.stat(reference).st_blocks * 512
    for capacity in range(size - 16384, size + 4096, 1024):
        env_at = preloading_disk_fills(folder, capacity)
        r = subprocess.run([cli, "convert", small, out, "--layout", "dense"], capture_output=True, text=True, timeout=60,
                           env=env_at)
        errors = [line for line in r.stderr.splitlines() if line.startswith("error: ")]
        what = f"convert on a disk of {capacity} bytes"
        check(r.returncode in (0, 3), f"{what}: exit {r.returncode}; stderr: {r.stderr}")
        if r.returncode == 3:
            check(len(errors) == 1 and errors[0].startswith(f"error: {out}") and errors[0].endswith("(disk full?)"),
                  f"{what}: error lines {errors}")
            check(not os.listdir(folder), f"{what}: left {os.listdir(folder)}")
        else:
            check(not errors, f"{what}: exit 0 with {errors}")
            with h5py.File(out) as f, h5py.File(small) as g:
                check(np.array_equal(f["x"][()], g["x"][()]), f"{what}: exit 0 over values that differ")
            os.remove(out)
    # A batch (and the desktop's Export, which runs one) reports the input as failed: exit 1.
    batch = os.path.join(work, "batch.json")
    with open(batch, "w") as f:
        json.dump({"version": 1, "inputs": ["source.h5"], "memory_limit": "1M",
                   "sparsify": {"method": "threshold", "threshold": 0.5}, "output": {"path": "filling/o.h5"}}, f)
    r = subprocess.run([cli, "run", batch], capture_output=True, text=True, timeout=60, env=env)
    errors = [line for line in r.stderr.splitlines() if line.startswith("error: ")]
    check(r.returncode == 1 and len(errors) == 1 and re.search("o\\.h5:/[gx]: cannot write", errors[0]), f"run: exit {r.returncode}, {r.stderr}")
    check(not os.listdir(folder), f"run: left {os.listdir(folder)}")
    check(digest(source) == before, "the input changed")


def file_lock(cli, work):
    """An input held open for writing by another HDF5 process: exit 3 saying it is locked (it is
    not corrupt), and `run` goes on to the next input."""
    os.environ.pop("HDF5_USE_FILE_LOCKING", None)  # locking on, as HDF5 1.10 has it by default
    locked = good_input(work, "a_locked.h5")
    good_input(work, "b_good.h5")
    holder = subprocess.Popen([sys.executable, "-c", "import h5py, sys\nf = h5py.File(sys.argv[1], 'a')\nprint('open', flush=True)\n"
                               "sys.stdin.read()", locked], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        check(holder.stdout.readline().strip() == "open", "the holder did not open the file")
        locked_error = "a_locked\\.h5: cannot open: is locked by another process \\(HDF5 file locking"
        one_error(run(cli, "inspect", locked, code=3), locked_error)
        one_error(run(cli, "convert", locked, os.path.join(work, "out.h5"), "--layout", "coo", code=3), locked_error)
        batch = os.path.join(work, "batch.json")
        with open(batch, "w") as f:
            json.dump({"version": 1, "inputs": ["*.h5"], "sparsify": {"method": "threshold", "threshold": 1},
                       "output": {"path": "out/{name}"}}, f)
        one_error(run(cli, "run", batch, code=1), locked_error)
        check(os.path.exists(os.path.join(work, "out", "b_good.h5")), "run went on to the next input")
    finally:
        holder.communicate("")
    check(not os.path.exists(os.path.join(work, "out.h5")), "an output was written")


def limited_memory():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def run_reports(cli, work):
    """`run` prints a failed input's error line before its notes; running out of memory names
    the file and dataset (was "error: out of memory"), in `run` and in `convert`/`sparsify`."""
    with h5py.File(os.path.join(work, "a_fail.h5"), "w") as f:
        f["names"] = np.array([b"a", b"b"])
        f["cube"] = np.ones((2, 3, 4))
    good_input(work, "b_good.h5")
    batch = os.path.join(work, "batch.json")
    with open(batch, "w") as f:
        json.dump({"version": 1, "inputs": ["a_fail.h5", "b_good.h5"], "sparsify": {"method": "threshold", "threshold": 1},
                   "output": {"path": "out/{name}", "layout": "csr"}}, f)
    r = run(cli, "run", batch, code=1)
    lines = [line for line in r.stderr.splitlines() if "a_fail.h5" in line]
    check(len(lines) == 2 and re.match("error: .*a_fail\\.h5:/cube: layout csr needs a 2-d tensor", lines[0])
          and re.match("note: .*a_fail\\.h5:/names: skipped: not a numeric or bool dataset", lines[1]),
          f"the error line must come first, then its notes: {r.stderr}")
    with open(cli, "rb") as f:
        if b"__asan_init" in f.read():
            print("out-of-memory part skipped: AddressSanitizer cannot start under an address-space limit")
            return
    # 4 GiB declared (below physical memory, so not refused up front) under a 3 GiB address space:
    # a dense /x that sparsify holds in memory (within an 8G budget, given: the auto budget,
    # half of the memory available at that moment, could make it stream), and a csc /c (2**29
    # entries, 32768 a column) that convert reads into csr in bands of rows, each band larger
    # than the address space.
    big = os.path.join(work, "c_big.h5")
    with h5py.File(big, "w") as f:
        f.create_dataset("x", shape=(2**15, 2**14), dtype="f8", chunks=(64, 1024))
        c = f.create_group("c")
        c.attrs["encoding-type"], c.attrs["encoding-version"] = "csc_matrix", "0.1.0"
        c.attrs["shape"] = np.array([2**15, 2**14], dtype=np.int64)
        c.create_dataset("data", shape=(2**29,), dtype="f8", chunks=(2**17,))
        c.create_dataset("indices", shape=(2**29,), dtype="i8", chunks=(2**17,))
        c["indptr"] = np.arange(2**14 + 1, dtype=np.int64) * 2**15
    # An explicit budget over the 3 GiB address-space cap: the auto one is half the memory
    # available, and on a busy machine that refused the read (exit 2) before it ran out.
    for args, element in ((["convert", big, os.path.join(work, "o.h5"), "--layout", "csr", "--dataset", "/c",
                            "--memory-limit", "8G"], "c"),
                          (["sparsify", big, "-o", os.path.join(work, "o.h5"), "--method", "threshold", "--threshold", "1",
                            "--dataset", "/x", "--memory-limit", "8G"], "x")):
        r = subprocess.run([cli, *args], capture_output=True, text=True, preexec_fn=limited_memory, timeout=20)
        check(r.returncode == 3, f"{args[0]} out of memory: exit {r.returncode}, expected 3: {r.stderr}")
        one_error(r, f"c_big\\.h5:/{element}: out of memory (reading|converting|sparsifying) it")
    with open(batch, "w") as f:
        json.dump({"version": 1, "inputs": ["c_big.h5", "b_good.h5"], "datasets": ["/x"], "memory_limit": "8G",
                   "sparsify": {"method": "threshold", "threshold": 1}, "output": {"path": "out2/{name}"}}, f)
    r = subprocess.run([cli, "run", batch], capture_output=True, text=True, preexec_fn=limited_memory, timeout=20)
    check(r.returncode == 1, f"run out of memory: exit {r.returncode}, expected 1: {r.stderr}")
    one_error(r, "c_big\\.h5:/x: out of memory sparsifying it")
    check(os.path.exists(os.path.join(work, "out2", "b_good.h5")), "run went on past the input out of memory")


def implausible_attributes(cli, work):
    """Attributes are checked (class, dataspace, size) before they are read: an `encoding-type`
    of the wrong class, or a string of an implausible size, is treated as absent, so its group is
    a plain group and the file's datasets are still read. (Corrupt global heaps, which crash or
    hang HDF5 1.10.8 itself, are a known limit: docs/KNOWN_LIMITS.md.)"""
    path = os.path.join(work, "attributes.h5")
    with h5py.File(path, "w", libver="latest") as f:  # dense attribute storage: attributes over 64 KiB
        f.create_group("wrong_class").attrs["encoding-type"] = np.array([1, 2, 3])
        f.create_group("huge_string").attrs.create("encoding-type", np.bytes_(b"c" * 70000))
        f.create_group("not_scalar").attrs["encoding-type"] = np.array([b"csr_matrix", b"coo_tensor"])
        f["x"] = np.ones((2, 3), np.float32)
    before = digest(path)
    r = subprocess.run([cli, "inspect", path], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"inspect: exit {r.returncode}: {r.stderr}")
    check("/x" in r.stdout, f"inspect does not list /x: {r.stdout}")
    out = os.path.join(work, "attributes_coo.h5")
    r = subprocess.run([cli, "convert", path, out, "--layout", "coo"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, f"convert: exit {r.returncode}: {r.stderr}")
    with h5py.File(out, "r") as f:
        check(list(f) == ["x"], f"convert wrote {list(f)}")
    check(digest(path) == before, "the input was modified")


def default_spills(cli, work, rng):
    """1.5 M shuffled entries (36 MiB as read, more than three 8 MiB bands): spilled by default
    where TMPDIR has room on a disk, else read whole (one band); convert into csr and eval
    `amax(c, 1)` (whose one band of its share would hold it all) write the same either way.
    Not under AddressSanitizer: its allocator's peaks are not comparable, and its spill is the
    one spill_faults' capped cases exercise (25 s there for six runs)."""
    with open(cli, "rb") as f:
        if b"__asan_init" in f.read():
            print("default spill part skipped under AddressSanitizer")
            return
    large = os.path.join(work, "large_shuffled.h5")
    entries = 1_500_000
    with h5py.File(large, "w") as f:
        write_shuffled_coo(f, "c", (100_000, 4096), entries, rng)
    by_default = {"convert": (["convert", large, "{out}", "--layout", "csr"], ("c/data", "c/indices", "c/indptr")),
                  "eval": (["eval", "--expr", "amax(c, 1)", "--input", f"c={large}:/c", "-o", "{out}"], ("result",))}
    for command, (args, datasets) in by_default.items():
        results = {}
        for name, folder in [("spilled", work), ("missing", os.path.join(work, "missing")), ("tmpfs", "/dev/shm")]:
            if not os.path.isdir(folder) and name == "tmpfs":
                continue
            result = os.path.join(work, f"large_{name}.h5")
            # The command's own peak (VmHWM, in its --json report). A child's rusage, as this
            # script would read it, counts this Python process's own peak too (kept across exec).
            r = subprocess.run([cli, *[a.replace("{out}", result) for a in args], "--json"], capture_output=True,
                               text=True, env=dict(os.environ, TMPDIR=folder), timeout=120)
            check(r.returncode == 0, f"{command} by default with TMPDIR {folder}: {r.stderr}")
            with h5py.File(result) as f:
                results[name] = ([f[d][()] for d in datasets], json.loads(r.stdout)["peak_memory_bytes"])
            os.remove(result)
        for name, (arrays, peak) in results.items():
            check(all(np.array_equal(a, b) for a, b in zip(arrays, results["spilled"][0])), f"{command} {name}: differs")
            # Whole (or one band), it holds two to three times the 36 MiB it reads; spilled, 30-45 MiB.
            check(name == "spilled" or peak > results["spilled"][1] + 32 * 2**20,
                  f"{command} {name}: peak {peak} bytes, spilled {results['spilled'][1]}: not read whole?")
    os.remove(large)


def spill_faults(cli, work):
    """A coo whose rows go back, read under a budget that takes more than two bands, is spilled
    sorted by row to a scratch file in TMPDIR first. A TMPDIR that does not exist, and one on a
    full disk (a 256 KiB ext4 image; root only), give exit 3 and one error naming the element,
    the folder and the reason, for convert, sparsify, eval and step (of it as a gradient); no
    output, no temporary file, and the full disk holds nothing afterwards (the spill has no name:
    nothing to leave behind). A TMPDIR on a tmpfs is not spilled to (its pages are memory): each band is
    read by a scan, with a note, and the outputs are the spilled runs'. By default a coo too
    large to scan in two bands is spilled too, by convert and eval, where TMPDIR has room on a
    disk; where it is missing or a tmpfs (/dev/shm), they read it whole (in one band) instead,
    and succeed (default_spills): the same file either way, the spilled run's peak memory lower
    by more than 32 MiB. eval's two passes over the coo share one spill: a TMPDIR with room for
    one succeeds."""
    source = os.path.join(work, "shuffled.h5")
    rng = np.random.default_rng(3)
    rows, columns, entries = 2000, 200, 40000
    with h5py.File(source, "w") as f:
        write_shuffled_coo(f, "c", (rows, columns), entries, rng)
        f["p"] = rng.standard_normal((rows, columns)).astype(np.float32)
    before = digest(source)
    out = os.path.join(work, "out.h5")
    commands = [["convert", source, out, "--layout", "csr", "--memory-limit", "16K"],
                ["convert", source, out, "--layout", "dense", "--memory-limit", "16K"],
                ["sparsify", source, "-o", out, "--method", "threshold", "--threshold", "0.5", "--memory-limit", "16K"],
                ["eval", "--expr", "sum(c, 1)", "--input", f"c={source}:/c", "-o", out, "--memory-limit", "16K"],
                ["step", source, "-o", out, "--optimizer", "adagrad", "--semantics", "lazy", "--param", "/p", "--grad", "/c",
                 "--memory-limit", "16K"]]

    def refused(folder, reason):
        for args in commands:
            r = subprocess.run([cli, *args], capture_output=True, text=True, timeout=60, env=dict(os.environ, TMPDIR=folder))
            check(r.returncode == 3, f"{args[0]} with TMPDIR {folder}: exit {r.returncode}, expected 3: {r.stderr}")
            one_error(r, "shuffled\\.h5:/c: cannot spill its entries, sorted by row, to " + re.escape(folder)
                      + " \\(TMPDIR\\): " + reason + "$")
            check(not os.path.exists(out), f"{args[0]} with TMPDIR {folder}: an output")
        check(digest(source) == before, "the input changed")

    # Within the default budget nothing spills: TMPDIR is not looked at.
    r = subprocess.run([cli, "convert", source, out, "--layout", "csr"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, TMPDIR=os.path.join(work, "missing")))
    check(r.returncode == 0, f"convert by default with TMPDIR missing: {r.stderr}")
    os.remove(out)
    refused(os.path.join(work, "missing"), "No such file or directory")

    default_spills(cli, work, rng)
    if os.geteuid() != 0:
        print("full-disk and tmpfs spill cases skipped: mounting a file system needs root")
        return
    # TMPDIR on a tmpfs: its pages would be memory beyond the limit, so nothing spills there (this
    # one would be full: 256 KiB). Each band is read by a scan instead, with a note saying so,
    # and the outputs are those of the spilled runs (TMPDIR on a disk) byte for byte.
    tmpfs = os.path.join(work, "tmpfs")
    with mounted(["-t", "tmpfs", "-o", "size=256k", "tmpfs"], tmpfs) as ready:
        if ready:
            # Under 128K, not 16K: 15 to 286 bands, each a scan (under 16K, a scan of tiny
            # windows each, the five took 87 s here).
            for args in ([a.replace("16K", "128K") for a in command] for command in commands):
                spilled = subprocess.run([cli, *args], capture_output=True, text=True, timeout=60,
                                         env=dict(os.environ, TMPDIR=work))
                check(spilled.returncode == 0, f"{args[0]} spilled: {spilled.stderr}")
                expected = datasets_of(out)
                r = subprocess.run([cli, *args], capture_output=True, text=True, timeout=60,
                                   env=dict(os.environ, TMPDIR=tmpfs))
                check(r.returncode == 0, f"{args[0]} with TMPDIR on a tmpfs: exit {r.returncode}: {r.stderr}")
                check(re.search("note: .*shuffled\\.h5:/c: read in [0-9]+ bands of rows, each by a scan of it: not spilled "
                                "sorted by row to " + re.escape(tmpfs) + ", a tmpfs", r.stderr),
                      f"{args[0]} with TMPDIR on a tmpfs: no note saying why it scans: {r.stderr}")
                check(datasets_of(out) == expected, f"{args[0]} with TMPDIR on a tmpfs: not the spilled run's output")
                os.remove(out)
            check(not os.listdir(tmpfs), f"files left in the tmpfs TMPDIR: {os.listdir(tmpfs)}")
    # A full disk: a 256 KiB ext4 file system (of an image, mounted by a loop device).
    full = os.path.join(work, "full")
    with small_disk(work, "256K", full) as ready:
        if ready:
            free = os.statvfs(full).f_bfree
            refused(full, "No space left on device")
            check(not os.listdir(full) or os.listdir(full) == ["lost+found"], f"files left in TMPDIR: {os.listdir(full)}")
            check(os.statvfs(full).f_bfree == free, "the spill's blocks were not given back")
    # eval reads the coo twice (the result's pass, and a look-ahead) from one spill: a TMPDIR of
    # 1 MiB (946 KiB free) holds it (about 800 KiB), not two of it.
    with small_disk(work, "1M", full) as ready:
        if ready:
            evaluated = {}
            for limit in ("16K", None):
                target = os.path.join(work, f"eval_{limit}.h5")
                r = subprocess.run([cli, "eval", "--expr", "sum(c, 1)", "--input", f"c={source}:/c", "-o", target,
                                    *(["--memory-limit", limit] if limit else [])],
                                   capture_output=True, text=True, timeout=60, env=dict(os.environ, TMPDIR=full))
                check(r.returncode == 0, f"eval under {limit} with a 1 MiB TMPDIR: exit {r.returncode}: {r.stderr}")
                with h5py.File(target) as f:
                    evaluated[limit] = f["result"][()].tobytes()
                os.remove(target)
            check(evaluated["16K"] == evaluated[None], "eval spilled under 16K: not the default run's result")
            check(os.listdir(full) == ["lost+found"], f"files left in TMPDIR: {os.listdir(full)}")


def datasets_of(path):
    """Every dataset of an HDF5 file, by name, as bytes."""
    found = {}
    with h5py.File(path) as f:
        f.visititems(lambda name, node: found.__setitem__(name, node[()].tobytes()) if isinstance(node, h5py.Dataset) else None)
    return found

CASES = {f.__name__: f for f in [link_cycle, huge_dataset, batch_json, signals, killed, long_name, disk_full, disk_fills_mid_write, file_lock, run_reports, spill_faults,
                                 implausible_attributes]}


def main():
    cli, workdir, case = sys.argv[1:4]
    work = os.path.join(workdir, case)
    unmount_under(work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    CASES[case](cli, work)
    check(not leftovers(work), f"temporary files left in {work}: {leftovers(work)}")
    print("ok:", case)


if __name__ == "__main__":
    main()
