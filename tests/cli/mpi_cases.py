#!/usr/bin/python3
"""`sparsity-mpi` against `sparsity` (docs/SCALING.md):

    mpi_cases.py SPARSITY SPARSITY_MPI MPIRUN WORKDIR PART

PART is `sparsify`, `step` or `others` (everything else): three CTest tests that ctest runs
side by side, since an mpirun launch mostly waits (0.55 s wall for 0.27 s of CPU).

* --version says MPI is enabled, with the ranks and parallel HDF5; started alone (no mpirun)
  it is one rank and writes what `sparsity` writes;
* `sparsify` under `mpirun -np 1, 2, 3, 4` (oversubscribed on a 2-core machine) writes, for
  every method and output layout, the file `sparsity` writes: the same objects in the same
  order, every dataset's dtype, shape and bytes, every attribute; and the same report. Rows
  not divisible by the ranks, ranks with no rows (a 3-row tensor on 4 ranks), float64 with
  NaN/Inf, int32 and 3-d inputs, streamed (a 64 KiB budget) and whole; csc with its column
  panels dealt out among the ranks (a rank with no panel makes empty writes); sparse inputs
  (csr, coo, csc, row_sparse) and masked ones (of dense, csr and row_sparse data) streamed
  under -np 2 and 3;
* `convert` across ranks writes what `sparsity` writes for every layout, by default and under
  a 64 KiB budget (dense datasets stream either way);
* `eval` across ranks: elementwise expressions and reductions (over a dim other than 0:
  row by row; over all dims or dim 0: tile partials folded on the root, and the root alone
  when they would not fit the budget) streamed, of sparse inputs densified by rows too, others
  whole, --print: the serial tool's file and report, bit for bit;
* `inspect --count` across ranks prints the serial tool's counts (rows or chunks divided);
* `step` across ranks (each its rows; a coo element's entries exchanged to their rows'
  ranks, in rounds): the serial tool's file and report for every optimizer and semantics,
  --mask (dense and coo), --compare, --state-from (states dense, row_sparse and coo), csr, coo
  and masked coo parameters, masked
  coo gradients (a mask whose pattern differs only across ranks refused alike), fewer rows
  than ranks, bad coo gradients (found in a later round); a step that holds whole tensors
  (resuming from a coo state of float64 values for a float32 parameter) runs on the root alone
  and writes and prints what `sparsity` does;
* `run` hands its inputs to free ranks and writes, reports and exits as `sparsity` does, a
  failing input included;
* a full disk (a tmpfs, as root): exit 3, one error line naming the dataset and the free
  space, nothing left behind, on 2 and 3 ranks;
* a corrupt chunk that only the last rank reads: exit 3, one error line naming the file and
  dataset, no output, no temporary file; a usage error and a missing input: one line, the
  serial tool's exit code; Ctrl-C on mpirun mid-write: every rank stops, nothing is left."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

from scratch_disks import mounted, small_disk, unmount_under
from sparsify_cases import write_masked_inputs


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)


def mpirun(mpirun_path, ranks, *args):
    return [mpirun_path, "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), *args]


def run(command, code=0):
    r = subprocess.run(command, capture_output=True, text=True, timeout=300)
    check(r.returncode == code, f"{' '.join(command)}: exit {r.returncode}, expected {code}: {r.stderr[-2000:]}")
    return r


def same_files(a, b, what):
    """The same objects in the same (creation) order, the same attributes, the same bytes."""
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        def walk(ga, gb, path):
            check(list(ga.attrs.keys()) == list(gb.attrs.keys()), f"{what}: {path} attributes differ")
            for key in ga.attrs:
                check(np.array_equal(np.asarray(ga.attrs[key]), np.asarray(gb.attrs[key])),
                      f"{what}: {path} attribute {key} differs")
            if isinstance(ga, h5py.Dataset):
                check(isinstance(gb, h5py.Dataset), f"{what}: {path} is a group in one file only")
                check(ga.dtype == gb.dtype and ga.shape == gb.shape, f"{what}: {path} dtype or shape differs")
                check(ga[()].tobytes() == gb[()].tobytes(), f"{what}: {path} values differ")
                return
            check(list(ga.keys()) == list(gb.keys()), f"{what}: {path} children {list(ga.keys())} vs {list(gb.keys())}")
            for key in ga:
                walk(ga[key], gb[key], f"{path}/{key}")
        walk(fa, fb, "")


def comparable(report):
    """A report without what differs between runs (times, memory, paths, how rows were held)."""
    drop = {"compute_seconds", "io_seconds", "peak_memory_bytes", "memory_limit_bytes", "output", "streamed"}
    if isinstance(report, dict):  # the CUDA context's time: the key kept, its value not compared
        return {k: "<seconds>" if k == "device_init_seconds" else comparable(v) for k, v in report.items() if k not in drop}
    if isinstance(report, list):
        return [comparable(v) for v in report]
    return report


def matches_serial(cli, cli_mpi, mpi, work, args, ranks, what):
    """`args` (a --json command that writes the file after -o) run by `sparsity`, then by
    `sparsity-mpi` under each -np of `ranks`: the same file and report. Returns the report."""
    reference = os.path.join(work, "reference.h5")
    expected = json.loads(run([cli, *args, "-o", reference]).stdout)
    for n in ranks:
        out = os.path.join(work, f"ranks{n}.h5")
        r = run(mpirun(mpi, n, cli_mpi, *args, "-o", out))
        same_files(reference, out, f"{what} -np {n}")
        check(comparable(json.loads(r.stdout)) == comparable(expected), f"{what} -np {n}: report differs")
        os.remove(out)
    os.remove(reference)
    return expected


def write_coo(f, name, shape, indices, values):
    group = f.create_group(name)
    group.attrs["encoding-type"], group.attrs["encoding-version"] = "coo_tensor", "0.1.0"
    group.attrs["shape"] = np.array(shape, dtype=np.int64)
    group["indices"] = np.asarray(indices, dtype=np.int64)
    group["values"] = values


def make_inputs(work):
    rng = np.random.default_rng(7)
    path = os.path.join(work, "in.h5")
    with h5py.File(path, "w") as f:
        f["W"] = rng.standard_normal((1003, 64)).astype("float32")  # 1003 rows: no even split
        e = rng.standard_normal((517, 36))
        e[3, 5], e[100, 0], e[400, 7] = np.nan, np.inf, -np.inf
        e[10:14] = 0.0
        f["E"] = e
        f["I"] = rng.integers(-5, 6, (300, 12)).astype("int32")
        f["T3"] = rng.standard_normal((90, 4, 8)).astype("float32")
        f["tiny"] = rng.standard_normal((3, 8)).astype("float32")  # fewer rows than ranks
        f["V"] = rng.standard_normal((1003, 64))
    return path


METHODS = {
    "threshold": ["--method", "threshold", "--threshold", "0.7"],
    "n-m": ["--method", "n-m", "--n", "2", "--m", "4"],
    "row-norm": ["--method", "row-norm", "--keep", "0.3"],
    "data-norm": ["--method", "data-norm", "--sparsity-level", "0.6", "--block", "4x4", "--norm", "L2"],
}


def sparsify_cases(cli, cli_mpi, mpi, work, source):
    for name, method in METHODS.items():
        for layout in ("dense", "masked", "csr", "csc", "coo", "row_sparse"):
            datasets = ["--dataset", "/W", "--dataset", "/E", "--dataset", "/I", "--dataset", "/tiny"]
            if layout not in ("csr", "csc"):
                datasets += ["--dataset", "/T3"]
            for limit in ("64K", "auto"):
                if limit == "auto" and layout not in ("dense", "csr"):
                    continue
                args = ["sparsify", source, *method, "--layout", layout, "--memory-limit", limit, *datasets, "--json"]
                matches_serial(cli, cli_mpi, mpi, work, args, (1, 2, 3, 4), f"sparsify {name} {layout} {limit}")
    # Sparse inputs stream across ranks too: each rank densifies its rows of a csr or row_sparse
    # element, and takes its rows' entries of a coo or csc one (exchanged), held coalesced.
    sparse = make_sparse_inputs(work)
    datasets = [a for p in ("/Scsr", "/Scoo", "/Scsc", "/Srows", "/Ssorted") for a in ("--dataset", p)]
    for name, method in METHODS.items():
        for layout in ("dense", "csr", "csc"):
            args = ["sparsify", sparse, *method, "--layout", layout, "--memory-limit", "128K", *datasets, "--json"]
            report = matches_serial(cli, cli_mpi, mpi, work, args, (2, 3), f"sparsify of sparse inputs {name} {layout}")
            # A threshold of a csr or csc into its own layout works on the stored values where they
            # lie (they fit half of 128K; every rank reads them, the root writes); the rest stream.
            stored = lambda d: name == "threshold" and (d["path"], layout) in (("/Scsr", "csr"), ("/Scsc", "csc"))
            check(all(d["stored_values_only"] == stored(d) and (d["streamed"] or stored(d)) for d in report["datasets"]),
                  f"sparse inputs {name} {layout}: not streamed, or not on stored values where it could: "
                  f"{[(d['path'], d['streamed'], d['stored_values_only']) for d in report['datasets']]}")
    # masked_tensors of dense, csr, row_sparse and coo (rows ascending) data stream across ranks
    # too: each rank reads its rows' values and specified elements.
    masked = os.path.join(work, "masked_in.h5")
    write_masked_inputs(masked, np.random.default_rng(13))
    datasets = [a for p in ("/m_table", "/m_odd", "/m_csr", "/m_rows", "/m_coo") for a in ("--dataset", p)]
    for name, method in METHODS.items():
        for layout in ("dense", "masked", "csr", "csc"):
            args = ["sparsify", masked, *method, "--layout", layout, "--memory-limit", "64K", *datasets, "--json"]
            report = matches_serial(cli, cli_mpi, mpi, work, args, (2, 3), f"sparsify of masked inputs {name} {layout}")
            check(report["datasets"][0]["streamed"], f"masked inputs {name} {layout}: /m_table not streamed")
    # Under 1M every threshold into a sparse layout but /Srows' (64 values in almost every row, a
    # quarter of 1M is too little) works on the stored values, converted after.
    stored_inputs = [a for p in ("/Scsr", "/Scoo", "/Scsc") for a in ("--dataset", p)]
    for layout in ("csr", "csc", "coo", "row_sparse"):
        args = ["sparsify", sparse, *METHODS["threshold"], "--layout", layout, "--memory-limit", "1M", *stored_inputs, "--json"]
        report = matches_serial(cli, cli_mpi, mpi, work, args, (2, 3), f"stored values of sparse inputs into {layout}")
        check(all(d["stored_values_only"] for d in report["datasets"]), f"stored values into {layout}: {report['datasets']}")


def make_sparse_inputs(work):
    """A 1003 x 64 float32 table about 4% filled (251 KiB dense, over the 128K the cases give;
    its coo, held coalesced, 81 KiB), as csr, coo (entries shuffled, one duplicated), csc and
    row_sparse, a coo whose rows ascend, and a csr with unsorted indices and a duplicate (for
    convert's notes)."""
    rng = np.random.default_rng(11)
    table = np.where(rng.random((1003, 64)) < 0.04, rng.standard_normal((1003, 64)), 0).astype("float32")
    rows, cols = np.nonzero(table)
    path = os.path.join(work, "sparse_in.h5")
    with h5py.File(path, "w") as f:
        for name, matrix in (("Scsr", table), ("Scsc", table.T)):
            group = f.create_group(name)
            group.attrs["encoding-type"] = "csr_matrix" if name == "Scsr" else "csc_matrix"
            group.attrs["encoding-version"] = "0.1.0"
            group.attrs["shape"] = np.array(table.shape, dtype=np.int64)
            major, minor = np.nonzero(matrix)
            group["data"] = matrix[major, minor]
            group["indices"] = minor.astype(np.int64)
            group["indptr"] = np.concatenate([[0], np.cumsum((matrix != 0).sum(axis=1))]).astype(np.int64)
        order = rng.permutation(len(rows))
        r, c = np.concatenate([rows[order], rows[:1]]), np.concatenate([cols[order], cols[:1]])
        values = np.concatenate([table[rows[order], cols[order]], [0.25]]).astype("float32")
        write_coo(f, "Scoo", table.shape, np.stack([r, c]), values)
        # A coo whose rows ascend (columns shuffled within each, one entry duplicated): read by
        # rows, each rank its own.
        order = np.lexsort((rng.random(len(rows)), rows))
        r, c = np.insert(rows[order], 40, rows[order][40]), np.insert(cols[order], 40, cols[order][40])
        values = np.insert(table[rows[order], cols[order]], 40, 1e8).astype("float32")
        write_coo(f, "Ssorted", table.shape, np.stack([r, c]), values)
        # A csr whose rows' indices are reversed, with a duplicate in a row past 900: I7's notice,
        # read by rows serially and whole across ranks, tells the same.
        group = f.create_group("Sunsorted")
        group.attrs["encoding-type"], group.attrs["encoding-version"] = "csr_matrix", "0.1.0"
        group.attrs["shape"] = np.array(table.shape, dtype=np.int64)
        twice = next(i for i in range(900, table.shape[0]) if table[i].any())
        column = [np.nonzero(row)[0][::-1].tolist() + ([np.nonzero(row)[0][0]] if i == twice else [])
                  for i, row in enumerate(table)]
        group["indptr"] = np.concatenate([[0], np.cumsum([len(c) for c in column])]).astype(np.int64)
        group["indices"] = np.concatenate(column).astype(np.int64)
        group["data"] = np.concatenate([table[i, c] for i, c in enumerate(column)]).astype("float32")
        # Stored zeros and a -0 (a row_sparse output adds each to 0: +0), a duplicate summed in
        # stored order, and a row stored with nothing but zeros.
        group["data"][[0, 1, 5]] = [0.0, -0.0, 1e8]
        blank = next(i for i in range(table.shape[0]) if not table[i].any())
        filled = np.unique(np.concatenate([rows, [blank]]))
        group = f.create_group("Srows")
        group.attrs["encoding-type"], group.attrs["encoding-version"] = "row_sparse", "0.1.0"
        group.attrs["shape"] = np.array(table.shape, dtype=np.int64)
        group["indices"] = filled.astype(np.int64)
        group["data"] = table[filled]
    return path


def convert_cases(cli, cli_mpi, mpi, work, source):
    variants = [(source, layout, limit, []) for layout in ("dense", "csr", "coo", "row_sparse", "csc")
                for limit in ("64K", "auto")]
    variants.append((source, "csr", "64K", ["--keep-others"]))  # the elements not converted copied (H5Ocopy by every rank)
    # Sparse inputs to dense: across ranks each is read whole (serially a csr or row_sparse one
    # streams), and the root tells every notice, as the serial tool does.
    sparse = make_sparse_inputs(work)
    variants.append((sparse, "dense", "1M", []))
    # Datasets of no elements (4 x 0, 0 x 4): across ranks, writing 4 x 0's rows failed ("cannot
    # write rows (disk full?)"); every rank now skips the write of nothing, as one process does.
    empty = os.path.join(work, "empty_extents.h5")
    with h5py.File(empty, "w") as f:
        f["d40"] = np.zeros((4, 0), dtype="float32")
        f["d04"] = np.zeros((0, 4), dtype="float32")
    variants += [(empty, layout, "64K", []) for layout in ("dense", "csr", "coo", "row_sparse", "csc")]
    # A csr's indptr is written from the counts 131,072 values at a time, every rank making as
    # many writes as the rank with the most: of 524,288 rows on 2 ranks the root writes three
    # pieces (its rows and indptr[0]), the other two and an empty third.
    tall = os.path.join(work, "tall_rows.h5")
    with h5py.File(tall, "w") as f:
        rows = np.random.default_rng(21).random((524_288, 2))
        rows[rows < 0.7] = 0
        f["t"] = rows.astype("float32")
    variants.append((tall, "csr", "auto", []))
    for input_file, layout, limit, keep in variants:
        args = [input_file, "--layout", layout, "--memory-limit", limit, *keep]
        if layout in ("csr", "csc") and input_file == source:
            args += ["--dataset", "/W", "--dataset", "/E", "--dataset", "/tiny"]
        reference = os.path.join(work, "convert_reference.h5")
        expected = run([cli, "convert", args[0], reference, *args[1:]])
        for ranks in (1, 2, 3, 4):
            out = os.path.join(work, f"convert{ranks}.h5")
            r = run(mpirun(mpi, ranks, cli_mpi, "convert", args[0], out, *args[1:]))
            what = f"convert {layout} {limit} -np {ranks}"
            same_files(reference, out, what)
            check(r.stdout == expected.stdout, f"{what}: printed {r.stdout!r}")
            check(r.stderr.count("note:") == expected.stderr.count("note:"), f"{what}: notes {r.stderr!r}")
            if input_file == sparse:
                check(r.stderr == expected.stderr, f"{what}: notes {r.stderr!r} vs {expected.stderr!r}")
            os.remove(out)
    # A csr, row_sparse or rows-ascending coo element into a sparse layout: it streams, a block
    # of rows at a time (under 16K, dozens of blocks), each block converted as stored, each rank
    # its own rows. The same file and notes: the blocks are the whole conversion's, stored
    # zeros, -0, duplicates (summed) and all. A coo into coo, its rows ascending or not, is a
    # copy of its entries, each rank its own share of them.
    def by_rows_across_ranks(source_file, layout, picks, serial_limit, ranks_limit, what):
        """The serial tool under `serial_limit`, then -np 2 and 3 under `ranks_limit`: the same file,
        report and notes."""
        reference = os.path.join(work, "convert_reference.h5")
        expected = run([cli, "convert", source_file, reference, "--layout", layout, *picks, "--memory-limit", serial_limit])
        for ranks in (2, 3):
            out = os.path.join(work, f"convert{ranks}.h5")
            r = run(mpirun(mpi, ranks, cli_mpi, "convert", source_file, out, "--layout", layout, *picks, "--memory-limit",
                           ranks_limit))
            same_files(reference, out, f"{what}, -np {ranks}")
            check(r.stdout == expected.stdout and r.stderr == expected.stderr,
                  f"{what}, -np {ranks}: {r.stdout!r} {r.stderr!r} vs {expected.stdout!r} {expected.stderr!r}")
            os.remove(out)

    for layout in ("csr", "coo", "row_sparse"):
        picks = [a for p in ("/Scsr", "/Sunsorted", "/Srows", "/Ssorted") + (("/Scoo",) if layout == "coo" else ())
                 for a in ("--dataset", p)]
        by_rows_across_ranks(sparse, layout, picks, "16K", "1M", f"convert of sparse elements into {layout} by rows")
    # A masked_tensor of dense, csr, row_sparse or coo (rows ascending) data into dense, csr, coo
    # and row_sparse: each rank converts its rows, data and mask written as the serial tool writes
    # them.
    masked = os.path.join(work, "masked_in.h5")
    write_masked_inputs(masked, np.random.default_rng(19))
    picks = [a for p in ("/m_table", "/m_odd", "/m_csr", "/m_rows", "/m_coo") for a in ("--dataset", p)]
    for layout in ("dense", "csr", "coo", "row_sparse"):
        by_rows_across_ranks(masked, layout, picks, "64K", "64K", f"convert of masked elements into {layout}")
    # A csc into csc, a panel of columns at a time (under 16K, a few columns each): the root
    # checks its indices and counts each column, each rank writes its own columns. /Scsc with each
    # column's rows reversed and a row of column 5 stored twice: canonicalized (I7), the
    # duplicate summed.
    csc = os.path.join(work, "csc_in.h5")
    with h5py.File(sparse) as src, h5py.File(csc, "w") as f:
        indptr, indices, data = src["Scsc/indptr"][()], src["Scsc/indices"][()], src["Scsc/data"][()]
        columns = [(indices[a:b][::-1], data[a:b][::-1]) for a, b in zip(indptr[:-1], indptr[1:])]
        rows5, values5 = columns[5]
        columns[5] = (np.append(rows5, rows5[0]), np.append(values5, np.float32(0.5)))
        group = f.create_group("c")
        group.attrs["encoding-type"], group.attrs["encoding-version"] = "csc_matrix", "0.1.0"
        group.attrs["shape"] = src["Scsc"].attrs["shape"]
        group["indptr"] = np.concatenate([[0], np.cumsum([len(r) for r, _ in columns])]).astype(np.int64)
        group["indices"] = np.concatenate([r for r, _ in columns]).astype(np.int64)
        group["data"] = np.concatenate([v for _, v in columns]).astype("float32")
    by_rows_across_ranks(csc, "csc", [], "16K", "16K", "convert of a csc into csc by columns")
    # The same csc, and /Scoo (entries shuffled, one duplicated), into dense and the row layouts
    # under 64K, where neither's whole conversion fits: in bands of rows (8 or so), each rank its
    # own rows' bands, read from a scratch file of its own that it first sorts its rows' entries
    # into (more than two bands: no name, in TMPDIR), its blocks densified (into dense) or converted as
    # stored; the I7 notice (csc_in's unsorted rows and duplicate) told once, as one process tells it.
    for layout in ("dense", "csr", "coo", "row_sparse"):
        by_rows_across_ranks(csc, layout, [], "64K", "64K", f"convert of a csc into {layout} by bands")
    for layout in ("dense", "csr", "row_sparse", "csc"):
        by_rows_across_ranks(sparse, layout, ["--dataset", "/Scoo"], "64K", "64K",
                             f"convert of a coo whose rows go back into {layout} by bands")
    # A csr, row_sparse or rows-ascending coo element, and a masked one, into csc under 16K: a
    # counting pass over blocks of rows (each rank its share, I7's notes told once, summed over
    # the ranks), then column panels dealt out to the ranks, each reading every block for its own.
    picks = [a for p in ("/Scsr", "/Sunsorted", "/Srows", "/Ssorted") for a in ("--dataset", p)]
    by_rows_across_ranks(sparse, "csc", picks, "16K", "16K", "convert of sparse elements into csc by column panels")
    picks = [a for p in ("/m_table", "/m_odd", "/m_csr", "/m_rows") for a in ("--dataset", p)]
    by_rows_across_ranks(masked, "csc", picks, "64K", "64K", "convert of masked elements into csc by column panels")


def repair_notice_cases(cli, cli_mpi, mpi, work):
    """A csr read by rows (sparsify's input, step's parameter and gradient) tells I7's notice
    (unsorted or duplicated indices, repaired) across ranks as one process tells it: each rank
    counts its own rows' duplicates, and the root tells them all. Sunsorted's duplicate lies in
    a row past 900, which the root reads in none of these divisions: its notice said 0
    duplicates, or was missing."""
    sparse = make_sparse_inputs(work)
    notes = lambda r: sorted(line for line in r.stderr.splitlines() if line.startswith("note:"))
    # (command, notices): a csc output's panels read every row on every rank, which told the
    # others' duplicates again; a gradient given twice is read, and told, twice.
    commands = [(["sparsify", sparse, "-o", "{out}", "--method", "n-m", "--n", "1", "--m", "4", "--dataset", "/Sunsorted"], 1),
                (["sparsify", sparse, "-o", "{out}", "--method", "n-m", "--n", "1", "--m", "4", "--dataset", "/Sunsorted",
                  "--layout", "csc"], 1),
                (["step", sparse, "-o", "{out}", "--optimizer", "sgd", "--semantics", "dense", "--param", "/Sunsorted",
                  "--grad", "/Sunsorted", "--grad", "/Sunsorted", "--lr", "0.1"], 3)]
    for command, notices in commands:
        for limit in ("16K", "auto"):
            args = [*command, "--memory-limit", limit]
            expected = run([cli, *[a.format(out=os.path.join(work, "notes_serial.h5")) for a in args]])
            told = [line for line in notes(expected) if "I7" in line]
            check(len(told) == notices and all("1 duplicates summed" in line for line in told),
                  f"{command[0]}: serial notes {told}")
            for ranks in (2, 3):
                r = run(mpirun(mpi, ranks, cli_mpi, *[a.format(out=os.path.join(work, "notes_mpi.h5")) for a in args]))
                check(notes(r) == notes(expected), f"{command[0]} under {limit} -np {ranks}: {notes(r)} vs {notes(expected)}")
    # A malformed row_sparse element (indices out of order) is refused by every rank together,
    # once: its reader is opened inside the ranks' agreement (openOnEveryRank; convert and
    # sparsify ended in MPI_ABORT).
    bad = os.path.join(work, "unsorted_rows.h5")
    with h5py.File(bad, "w") as f:
        group = f.create_group("R")
        group.attrs["encoding-type"], group.attrs["encoding-version"] = "row_sparse", "0.1.0"
        group.attrs["shape"] = np.array([20, 6], dtype=np.int64)
        group["indices"] = np.array([1, 5, 3, 9], dtype=np.int64)
        group["data"] = np.zeros((4, 6), dtype=np.float32)
    out = os.path.join(work, "unsorted_out.h5")
    for command in (["convert", bad, out, "--layout", "coo"], ["convert", bad, out, "--layout", "dense"],
                    ["sparsify", bad, "-o", out, "--method", "threshold", "--threshold", "0.1"]):
        r = run(mpirun(mpi, 3, cli_mpi, *command), code=2)
        check("MPI_ABORT" not in r.stderr and r.stderr.count("error:") == 1 and "R4" in r.stderr
              and not os.path.exists(out), f"a malformed row_sparse across ranks, {command}: {r.stderr!r}")
    # A coo whose rows ascend, columns out of range in its last rows: a block's indices are
    # checked as it is read, so the rank that reads them finds it, and tells the whole read's
    # first offender (entry 57), as one process does.
    late = os.path.join(work, "late_bad_coo.h5")
    with h5py.File(late, "w") as f:
        columns = np.tile([1, 4], 30)
        columns[-3], columns[-1] = 9, 7
        write_coo(f, "C", (30, 6), np.stack([np.repeat(np.arange(30), 2), columns]), np.ones(60, np.float32))
    serial = run([cli, "convert", late, out, "--layout", "dense", "--memory-limit", "4K"], code=2).stderr
    check("indices[1, 57]=9" in serial, f"a late bad coo column, one process: {serial!r}")
    r = run(mpirun(mpi, 3, cli_mpi, "convert", late, out, "--layout", "dense", "--memory-limit", "4K"), code=2)
    check("MPI_ABORT" not in r.stderr and r.stderr.count("error:") == 1 and serial.strip() in r.stderr
          and not os.path.exists(out), f"a late bad coo column across ranks: {r.stderr!r}")


def eval_cases(cli, cli_mpi, mpi, work, source):
    """Row-local expressions (softmax over any dim, inside other expressions too, and products by
    an input held whole included) and reductions stream across ranks; the rest are evaluated whole, written by the root."""
    long = os.path.join(work, "long.h5")
    with h5py.File(long, "w") as f:  # 5 tiles of the reductions' fixed order
        f["L"] = np.random.default_rng(11).standard_normal(300_001).astype("float32")
    projections = os.path.join(work, "projections.h5")  # held whole beside /W's rows by mm
    with h5py.File(projections, "w") as f:
        f["P"] = np.random.default_rng(12).standard_normal((64, 7)).astype("float32")
        f["Pd"] = np.random.default_rng(13).standard_normal((64, 8))  # tiles of 8192 rows: whole chunks
        f["R"] = np.random.default_rng(14).standard_normal(1003)  # /W's rows, one value each
    cases = [("x * 2 + 1", [f"x={source}:/W"]), ("sqrt(abs(x)) * y - x", [f"x={source}:/W", f"y={source}:/V"]),
             ("x * 3", [f"x={source}:/tiny"]), ("sum(x, 1)", [f"x={source}:/W"]), ("amax(x, -1) - 1", [f"x={source}:/T3"]),
             ("sum(x * x)", [f"x={long}:/L"]), ("mean(x, 0)", [f"x={source}:/V"]), ("norm(x - y)", [f"x={source}:/W", f"y={source}:/V"]),
             ("amin(x)", [f"x={source}:/tiny"]), ("softmax(x, 1)", [f"x={source}:/W"]),
             ("sum(log_softmax(x, 1) * y, 1)", [f"x={source}:/W", f"y={source}:/V"]),
             ("softmax(mm(x, p), 1)", [f"x={source}:/W", f"p={projections}:/P"]),
             ("mean(mm(x * 2, p), 0)", [f"x={source}:/W", f"p={projections}:/Pd"]),
             ("sum(x, 1) * r", [f"x={source}:/W", f"r={projections}:/R"]),
             ("softmax(x, 0)", [f"x={source}:/W"]), ("log_softmax(x * 2, 0)", [f"x={source}:/T3"]),
             ("sum(softmax(x, 0) * y, 1)", [f"x={source}:/W", f"y={source}:/V"]),
             ("mean(softmax(softmax(x, 0) * 2, 0), 0)", [f"x={source}:/W"])]  # folded columns, broadcast
    # Sparse inputs densified by rows, each rank its own: a csr (unsorted, a duplicate past row
    # 900: I7 told once with every rank's count) and a coo whose rows ascend (a row_sparse one's
    # row numbers, held, do not fit 4K).
    sparse = make_sparse_inputs(work)
    cases += [("s * x + 1", [f"s={sparse}:/Sunsorted", f"x={source}:/W"]),
              ("sum(s, 1) - mean(c, 1)", [f"s={sparse}:/Scsr", f"c={sparse}:/Ssorted"]),
              ("norm(s * 2)", [f"s={sparse}:/Scsr"]), ("softmax(c + 0, 0)", [f"c={sparse}:/Ssorted"])]
    for expression, bindings in cases:
        for limit in ("4K", "auto"):
            args = ["eval", "--expr", expression, "--memory-limit", limit, "--json"]
            for binding in bindings:
                args += ["--input", binding]
            matches_serial(cli, cli_mpi, mpi, work, args, (1, 2, 3, 4), f"eval {expression!r} {limit}")
    masked_eval_cases(cli, cli_mpi, mpi, work)
    printed = run([cli, "eval", "--expr", "x * 3", "--input", f"x={source}:/tiny", "-o", os.path.join(work, "p.h5"), "--print"])
    r = run(mpirun(mpi, 3, cli_mpi, "eval", "--expr", "x * 3", "--input", f"x={source}:/tiny", "-o",
                   os.path.join(work, "p3.h5"), "--print"))
    check(r.stdout.replace("p3.h5", "p.h5") == printed.stdout, f"eval --print -np 3: {r.stdout!r}")


def masked_eval_cases(cli, cli_mpi, mpi, work):
    """Masked inputs stream across ranks too: data and mask byte for byte, masked reductions folded
    on the root; masks that differ under the strict policy only in the last rank's rows (and once
    in the first's) are refused with the serial tool's message, counting every rank's."""
    rng = np.random.default_rng(15)
    path = os.path.join(work, "masked.h5")
    mask = rng.random((1003, 64)) < 0.6
    other = mask.copy()
    other[1001, 7], other[1002, 60], other[2, 2] = ~other[1001, 7], ~other[1002, 60], ~other[2, 2]
    with h5py.File(path, "w") as f:
        for name, bits in (("MX", mask), ("MY", mask), ("MZ", other)):
            g = f.create_group(name)
            g.attrs["encoding-type"], g.attrs["encoding-version"] = "masked_tensor", "0.1.0"
            g["data"] = rng.standard_normal((1003, 64)).astype("float32")
            g["mask"] = bits
        f["B"] = mask
        f["X"] = rng.standard_normal((1003, 64)).astype("float32")
        f["P"] = rng.standard_normal((64, 7)).astype("float32")  # held whole beside the masked rows
    for expression, names in [("x * 2 + y", "x=MX y=MY"), ("mean(x, 0)", "x=MX"), ("sum(x * y)", "x=MX y=MY"),
                              ("softmax(x, 1)", "x=MX"), ("masked(v, b) - x", "v=X b=B x=MX"), ("log_softmax(x, 0)", "x=MX"),
                              ("softmax(mm(x, p), 1)", "x=MX p=P"), ("softmax(x, 0) - y", "x=MX y=MY")]:
        bindings = [a for n in names.split() for a in ("--input", f"{n.split('=')[0]}={path}:/{n.split('=')[1]}")]
        for limit in ("4K", "auto"):
            matches_serial(cli, cli_mpi, mpi, work, ["eval", "--expr", expression, *bindings, "--memory-limit", limit, "--json"],
                           (1, 2, 3, 4), f"eval {expression!r} {limit}")
    out = os.path.join(work, "mismatch.h5")
    for expression in ("x + z", "sum(z * x, 0)", "softmax(x - z, 0)"):
        args = ["eval", "--expr", expression, "--input", f"x={path}:/MX", "--input", f"z={path}:/MZ", "-o", out,
                "--memory-limit", "4K"]
        expected = run([cli, *args], code=2).stderr.strip()
        check("first at [2, 2]" in expected, f"eval {expression!r}: {expected!r}")  # rank 0 rows, besides the last rank's
        for n in (2, 3, 4):
            r = run(mpirun(mpi, n, cli_mpi, *args), code=2)
            one_error_line(r, expected.removeprefix("error: "), f"eval {expression!r} -np {n}")
            check(not os.path.exists(out) and not leftovers(work), f"eval {expression!r} -np {n}: output left")


def step_cases(cli, cli_mpi, mpi, work):
    """A dense parameter is stepped by rows, each rank its own: the serial tool's file and
    report for every optimizer and semantics, gradients read by rows (dense, float64 into a
    float32 parameter, row_sparse, masked of dense, csr or row_sparse data) or divided by entries and exchanged (coo, element-wise and
    embedding-style rows with many duplicates), --mask, --compare, --state-from, a parameter
    with fewer rows than ranks, many blocks (8K) and one per rank (auto); a bad coo index and a
    non-finite coo value found by a later rank: the serial tool's one error line."""
    rng = np.random.default_rng(5)
    source = os.path.join(work, "step.h5")
    with h5py.File(source, "w") as f:
        f["P"] = rng.standard_normal((1003, 16)).astype("float32")
        csr = f.create_group("Pcsr")  # the parameter as csr: each rank reads and densifies its rows
        csr.attrs["encoding-type"], csr.attrs["encoding-version"] = "csr_matrix", "0.1.0"
        csr.attrs["shape"] = np.array([1003, 16], dtype=np.int64)
        dense_p = f["P"][()] * (rng.random((1003, 16)) < 0.6)
        rows, cols = np.nonzero(dense_p)
        csr["data"], csr["indices"] = dense_p[rows, cols], cols.astype(np.int32)
        csr["indptr"] = np.concatenate([[0], np.cumsum(np.count_nonzero(dense_p, axis=1))]).astype(np.int32)
        # A masked_tensor of csr data and a csr mask of its pattern: read by rows, data and mask.
        mcsr = f.create_group("Gmcsr")
        mcsr.attrs["encoding-type"], mcsr.attrs["encoding-version"] = "masked_tensor", "0.1.0"
        for part, values in (("data", rng.standard_normal(rows.size).astype("float32")), ("mask", rng.random(rows.size) < 0.7)):
            g = mcsr.create_group(part)
            g.attrs["encoding-type"], g.attrs["encoding-version"] = "csr_matrix", "0.1.0"
            g.attrs["shape"] = np.array([1003, 16], dtype=np.int64)
            g["data"], g["indices"], g["indptr"] = values, csr["indices"][()], csr["indptr"][()]
        # csc: each rank reads the columns whose entries begin in its share, and sends each entry
        # to its row's rank. /Gcsc_dup's columns are unsorted with duplicates and -0s (I7: the
        # note counts the whole's); /Gcsc_bad has a row out of range in a late column (found by
        # a later rank) and /Gcsc_bad2 one in an early column too, which is the one reported.
        dense_g = rng.standard_normal((1003, 16)).astype("float32") * (rng.random((1003, 16)) < 0.3)
        per_column = [np.nonzero(dense_g[:, c])[0] for c in range(16)]
        csc_rows = np.concatenate(per_column)
        csc_ptr = np.concatenate([[0], np.cumsum([len(r) for r in per_column])])
        csc_vals = np.concatenate([dense_g[r, c] for c, r in enumerate(per_column)])
        dup_rows = [np.concatenate([r[::-1], r[:3]]) for r in per_column]
        dup_vals = [np.concatenate([dense_g[r[::-1], c] * 0.5, -np.zeros(3, "float32")]) for c, r in enumerate(per_column)]
        bad, bad2 = csc_rows.copy(), csc_rows.copy()
        bad[-5] = 1010
        bad2[-5], bad2[40] = 1010, -1
        for name, rows, ptr, vals in (
                ("Gcsc", csc_rows, csc_ptr, csc_vals),
                ("Gcsc_dup", np.concatenate(dup_rows), np.concatenate([[0], np.cumsum([len(r) for r in dup_rows])]),
                 np.concatenate(dup_vals)),
                ("Gcsc_bad", bad, csc_ptr, csc_vals), ("Gcsc_bad2", bad2, csc_ptr, csc_vals)):
            g = f.create_group(name)
            g.attrs["encoding-type"], g.attrs["encoding-version"] = "csc_matrix", "0.1.0"
            g.attrs["shape"] = np.array([1003, 16], dtype=np.int64)
            g["data"], g["indices"], g["indptr"] = vals.astype("float32"), rows.astype(np.int64), ptr.astype(np.int64)
        # Masked_tensors of csc data and a csc mask, each part divided by columns and made
        # canonical per rank: /Gmcsc_canon's parts are canonical (compared as they are); /Gmcsc's
        # have the unsorted, duplicated pattern of /Gcsc_dup (its duplicates' bits differ);
        # /Gmcsc_sorted's mask has that pattern sorted (equal once canonical, as a whole read
        # compares them); /Gmcsc_bad's mask lacks a row of a late column (M2); /Gmcsc_tall's
        # mask has more rows (M1, after the mask's own read).
        dup_ptr = np.concatenate([[0], np.cumsum([len(r) for r in dup_rows])])
        sorted_rows = [np.sort(r) for r in dup_rows]
        short_rows = [r if c < 12 else r[1:] for c, r in enumerate(dup_rows)]
        dup_data = (np.concatenate(dup_rows), dup_ptr, np.concatenate(dup_vals).astype("float32"))
        for name, data, mask_rows, mask_ptr, mask_shape in (
                ("Gmcsc_canon", (csc_rows, csc_ptr, csc_vals.astype("float32")), per_column, csc_ptr, [1003, 16]),
                ("Gmcsc", dup_data, dup_rows, dup_ptr, [1003, 16]),
                ("Gmcsc_sorted", dup_data, sorted_rows, dup_ptr, [1003, 16]),
                ("Gmcsc_bad", dup_data, short_rows, np.concatenate([[0], np.cumsum([len(r) for r in short_rows])]),
                 [1003, 16]),
                ("Gmcsc_tall", dup_data, dup_rows, dup_ptr, [1010, 16])):
            m = f.create_group(name)
            m.attrs["encoding-type"], m.attrs["encoding-version"] = "masked_tensor", "0.1.0"
            mask_all = np.concatenate(mask_rows)
            for part, rows, ptr, vals, shape in (
                    ("data", *data, [1003, 16]),
                    ("mask", mask_all, mask_ptr, rng.random(mask_all.size) < 0.6, mask_shape)):
                g = m.create_group(part)
                g.attrs["encoding-type"], g.attrs["encoding-version"] = "csc_matrix", "0.1.0"
                g.attrs["shape"] = np.array(shape, dtype=np.int64)
                g["data"], g["indices"], g["indptr"] = vals, rows.astype(np.int64), ptr.astype(np.int64)
        f["G"] = rng.standard_normal((1003, 16)).astype("float32")
        f["G64"] = rng.standard_normal((1003, 16))
        f["M"] = rng.random((1003, 16)) < 0.4
        mask_rows, mask_cols = np.nonzero(f["M"][()])
        write_coo(f, "Mcoo", [1003, 16], np.stack([mask_rows, mask_cols]), np.ones(mask_rows.size, dtype=bool))
        write_coo(f, "Mcoo_back", [1003, 16], np.stack([mask_rows[::-1], mask_cols[::-1]]),
                  np.ones(mask_rows.size, dtype=bool))
        write_coo(f, "Gcoo", [1003, 16], np.stack([rng.integers(0, 1003, 300), rng.integers(0, 16, 300)]),
                  rng.standard_normal(300).astype("float32"))
        f["tiny"] = rng.standard_normal((3, 8)).astype("float32")
        f["tiny_g"] = rng.standard_normal((3, 8)).astype("float32")
        # An embedding gradient: one sparse dim, rows of 16 values, most rows many times over.
        emb_rows = rng.integers(0, 1003, 2000)
        write_coo(f, "Gemb", [1003, 16], emb_rows[None, :], rng.standard_normal((2000, 16)))
        # Out of range twice: dim 1 at entry 10 (read by the first rank), dim 0 at entry 1500
        # (a later one); C4 checks dim 0 first, so entry 1500 is the one to report.
        bad = np.stack([emb_rows, rng.integers(0, 16, 2000)])
        bad[1, 10], bad[0, 1500] = 99, 5000
        write_coo(f, "Gbad", [1003, 16], bad, rng.standard_normal(2000).astype("float32"))
        # Out of range in dim 1 only, at entries 900 and 1100: found in rounds of the exchange
        # (under 40K, 256 entries a round), the later rank's in an earlier round; 900 is reported.
        bad1 = np.stack([emb_rows, rng.integers(0, 16, 2000)])
        bad1[1, 900], bad1[1, 1100] = 99, 77
        write_coo(f, "Gbad1", [1003, 16], bad1, rng.standard_normal(2000).astype("float32"))
        rsp = f.create_group("Grsp")  # read by rows: each rank its stored rows
        rsp.attrs["encoding-type"], rsp.attrs["encoding-version"] = "row_sparse", "0.1.0"
        rsp.attrs["shape"] = np.array([1003, 16], dtype=np.int64)
        rsp["indices"] = np.unique(emb_rows[:400])
        rsp["data"] = rng.standard_normal((rsp["indices"].shape[0], 16)).astype("float32")
        mrsp = f.create_group("Gmrsp")  # a masked_tensor of row_sparse data and mask: read by rows
        mrsp.attrs["encoding-type"], mrsp.attrs["encoding-version"] = "masked_tensor", "0.1.0"
        for part, values in (("data", rng.standard_normal((rsp["indices"].shape[0], 16)).astype("float32")),
                             ("mask", rng.random((rsp["indices"].shape[0], 16)) < 0.6)):
            g = mrsp.create_group(part)
            g.attrs["encoding-type"], g.attrs["encoding-version"] = "row_sparse", "0.1.0"
            g.attrs["shape"] = np.array([1003, 16], dtype=np.int64)
            g["indices"], g["data"] = rsp["indices"][()], values
        masked = f.create_group("Gmasked")  # read by rows: data and mask
        masked.attrs["encoding-type"], masked.attrs["encoding-version"] = "masked_tensor", "0.1.0"
        masked["data"] = rng.standard_normal((1003, 16)).astype("float32")
        masked["mask"] = rng.random((1003, 16)) < 0.3
        # A masked_tensor of coo data and a coo mask (its parts exchanged by rows), and one
        # whose mask lists the same entries with two of them (rows of different ranks) swapped:
        # each rank's rows alike, the patterns not (M2).
        entries = np.stack([rng.integers(0, 1003, 3000), rng.integers(0, 16, 3000)])
        swapped = entries.copy()
        first, last = int(np.argmin(entries[0])), int(np.argmax(entries[0]))
        swapped[:, [first, last]] = swapped[:, [last, first]]
        # /Gmcoo_tall's mask has more rows, one stored past the data's (M1; no rank owns that row).
        tall = entries.copy()
        tall[0, 7] = 1008
        for name, mask_entries, mask_shape in (("Gmcoo", entries, [1003, 16]), ("Gmcoo_swapped", swapped, [1003, 16]),
                                               ("Gmcoo_tall", tall, [1010, 16])):
            g = f.create_group(name)
            g.attrs["encoding-type"], g.attrs["encoding-version"] = "masked_tensor", "0.1.0"
            write_coo(g, "data", [1003, 16], entries, rng.standard_normal(3000).astype("float32"))
            write_coo(g, "mask", mask_shape, mask_entries, rng.random(3000) < 0.7)
        values = rng.standard_normal((2000, 16)).astype("float32")
        values[1900, 3] = np.nan  # on a row of a late rank
        write_coo(f, "Gnan", [1003, 16], emb_rows[None, :], values)
    first = os.path.join(work, "step_first.h5")
    run([cli, "step", source, "-o", first, "--optimizer", "adam", "--semantics", "lazy", "--param", "/P", "--grad", "/Gcoo"])
    cases = [
        ["--optimizer", "adam", "--semantics", "dense", "--param", "/P", "--grad", "/G", "--grad", "/G64"],
        ["--optimizer", "adagrad", "--semantics", "lazy", "--param", "/P", "--grad", "/Gcoo", "--grad", "/G"],
        ["--optimizer", "sgd", "--semantics", "lazy", "--lr", "0.1", "--momentum", "0.5", "--param", "/P",
         "--grad", "/Gcoo", "--grad", "/Gcoo", "--compare", "masked"],
        ["--optimizer", "sgd", "--semantics", "masked", "--lr", "0.1", "--momentum", "0.9", "--param", "/P",
         "--grad", "/G", "--mask", "/M", "--compare", "dense", "--compare", "lazy"],
        ["--optimizer", "adam", "--semantics", "lazy", "--state-from", first, "--grad", "/Gcoo", "--grad", "/G64"],
        ["--optimizer", "adagrad", "--semantics", "dense", "--rule", "mxnet", "--param", "/tiny", "--grad", "/tiny_g"],
        ["--optimizer", "adagrad", "--semantics", "lazy", "--param", "/P", "--grad", "/Gemb", "--grad", "/Gcoo", "--grad", "/Gemb"],
        ["--optimizer", "sgd", "--semantics", "lazy", "--lr", "0.1", "--momentum", "0.9", "--param", "/P",
         "--grad", "/Gemb", "--grad", "/G", "--grad", "/Gemb"],
        ["--optimizer", "adam", "--semantics", "dense", "--param", "/P", "--grad", "/Grsp", "--grad", "/G64",
         "--compare", "lazy"],
        ["--optimizer", "adagrad", "--semantics", "masked", "--param", "/P", "--grad", "/Gmasked", "--grad", "/Gcoo",
         "--compare", "lazy"],
        ["--optimizer", "adam", "--semantics", "lazy", "--param", "/Pcsr", "--grad", "/Gcoo", "--grad", "/G",
         "--compare", "dense"],
        # COO gradients under the semantics that fill every block from them (each rank its rows).
        ["--optimizer", "adam", "--semantics", "dense", "--param", "/P", "--grad", "/Gemb", "--grad", "/Gcoo",
         "--compare", "lazy"],
        ["--optimizer", "adagrad", "--semantics", "masked", "--param", "/P", "--grad", "/Gcoo", "--grad", "/G",
         "--mask", "/M", "--compare", "dense"],
        # COO parameters, read once (each rank its rows), by element and by row.
        ["--optimizer", "adam", "--semantics", "lazy", "--param", "/Gcoo", "--grad", "/Gemb", "--grad", "/G",
         "--compare", "dense"],
        ["--optimizer", "adagrad", "--semantics", "dense", "--param", "/Gemb", "--grad", "/Gcoo"],
        ["--optimizer", "adam", "--semantics", "lazy", "--param", "/Gmcoo", "--grad", "/Gcoo", "--grad", "/G"],
        # A masked gradient of coo data and mask, each part divided by rows.
        ["--optimizer", "adagrad", "--semantics", "masked", "--param", "/P", "--grad", "/Gmcoo", "--grad", "/Gcoo",
         "--compare", "lazy", "--compare", "dense"],
        # Masked gradients of csr and of row_sparse data and mask, read by rows.
        ["--optimizer", "adam", "--semantics", "masked", "--param", "/P", "--grad", "/Gmcsr", "--grad", "/Gmasked",
         "--grad", "/Gmrsp", "--compare", "lazy", "--compare", "dense"],
        # csc gradients and a csc parameter, each rank its rows' entries (columns read by share).
        ["--optimizer", "adam", "--semantics", "lazy", "--param", "/P", "--grad", "/Gcsc", "--grad", "/Gcsc_dup",
         "--compare", "dense"],
        ["--optimizer", "adagrad", "--semantics", "dense", "--param", "/Gcsc", "--grad", "/Gcoo", "--grad", "/Gcsc"],
        # A coo --mask whose rows ascend, each rank reading its rows a block at a time; one whose
        # rows go back, read once (each rank its rows).
        ["--optimizer", "adagrad", "--semantics", "masked", "--param", "/P", "--grad", "/G", "--mask", "/Mcoo",
         "--compare", "dense"],
        ["--optimizer", "adagrad", "--semantics", "masked", "--param", "/P", "--grad", "/G", "--mask", "/Mcoo_back",
         "--compare", "dense"],
        # Masked csc gradients and parameter: data and mask each divided by columns, canonical per rank.
        ["--optimizer", "adam", "--semantics", "masked", "--param", "/P", "--grad", "/Gmcsc", "--grad", "/Gmcsc_sorted",
         "--grad", "/Gmcsc_canon", "--compare", "lazy", "--compare", "dense"],
        ["--optimizer", "adagrad", "--semantics", "lazy", "--param", "/Gmcsc", "--grad", "/Gcoo"],
    ]
    # Resumed from states stored sparse (`first`'s states and /last_update converted, as a user
    # keeps only the rows a lazy run touched): read by rows (row_sparse), or each rank its rows'
    # entries (coo).
    sparse_states = []
    for layout in ("row_sparse", "coo"):
        converted = os.path.join(work, f"step_first_{layout}.h5")
        run([cli, "convert", first, converted, "--layout", layout, "--dataset", "/state/exp_avg", "--dataset",
             "/state/exp_avg_sq", "--dataset", "/last_update"])
        with h5py.File(first, "r") as src, h5py.File(converted, "a") as dst:
            src.copy(src["param"], dst, "param")
            src.copy(src["state/step"], dst["state"], "step")
        sparse_states.append(converted)
        cases.append(["--optimizer", "adam", "--semantics", "lazy", "--state-from", converted, "--grad", "/Gcoo",
                      "--grad", "/G64", "--compare", "dense"])
    for case in cases:
        # 16K: many blocks, and /Gcoo fits, read and coalesced (about 10K); /Gemb's 2000 entries
        # (136 bytes each), /Mcoo_back's 6400 (17 bytes each, then 12 coalesced), /Gmcoo's 3000 and
        # the coo states need 600K; the three masked csc gradients, held together, 690K.
        for limit in ("1M" if {"/Gemb", "/Mcoo_back", "/Gmcoo", "/Gcsc", "/Gmcsc", *sparse_states} & set(case) else "16K",
                      "auto"):
            args = ["step", source, *case, "--memory-limit", limit, "--json"]
            expected = matches_serial(cli, cli_mpi, mpi, work, args, (2, 3, 4), f"step {' '.join(case)} {limit}")
            check(expected["streamed"], f"step {case}: not streamed")
    # COO gradients are read a share of entries per rank and exchanged: the first bad entry of
    # the whole file is reported, as the serial tool reports it.
    for grad, limit in (("/Gbad", "600K"), ("/Gnan", "600K"), ("/Gbad1", "40K"), ("/Gmcoo_swapped", "600K"),
                        ("/Gcsc_bad", "600K"), ("/Gcsc_bad2", "600K"), ("/Gmcsc_bad", "600K"), ("/Gmcsc_tall", "600K"),
                        ("/Gmcoo_tall", "600K")):
        args = ["step", source, "--optimizer", "adagrad", "--semantics", "lazy", "--param", "/P", "--grad", "/G",
                "--grad", grad, "--memory-limit", limit]
        out = os.path.join(work, "step_never.h5")
        serial = run([cli, *args, "-o", out], code=2)
        expected = [line for line in serial.stderr.splitlines() if line.startswith("error:")]
        check(len(expected) == 1, f"step {grad}: serial error lines {serial.stderr!r}")
        for ranks in (2, 3, 4):
            r = run(mpirun(mpi, ranks, cli_mpi, *args, "-o", out), code=2)
            one_error_line(r, expected[0][len("error: "):], f"step {grad} -np {ranks}")
            check(not os.path.exists(out) and not leftovers(work), f"step {grad} -np {ranks}: output or temporary left")
    # A csc gradient's unsorted and duplicated rows, found rank by rank: one note, with the whole
    # file's count of duplicates, as the serial tool gives it.
    args = ["step", source, "--optimizer", "adagrad", "--semantics", "lazy", "--param", "/P", "--grad", "/Gcsc_dup"]
    out = os.path.join(work, "step_notes.h5")
    expected = [line for line in run([cli, *args, "-o", out]).stderr.splitlines() if line.startswith("note:")]
    check(len(expected) == 1 and "48 duplicates summed" in expected[0], f"csc I7 note: {expected!r}")
    for ranks in (2, 3):
        r = run(mpirun(mpi, ranks, cli_mpi, *args, "-o", out))
        notes = [line for line in r.stderr.splitlines() if line.startswith("note:")]
        check(notes == expected, f"csc I7 note -np {ranks}: {notes!r}, expected {expected!r}")
    os.remove(out)
    # A rank holds its own rows' entries (and a round of the exchange): a budget below them is
    # refused. 200K holds them (about 132 KiB a rank at -np 2), where it held a share twice before.
    r = run(mpirun(mpi, 2, cli_mpi, "step", source, "-o", out, "--optimizer", "adagrad", "--semantics", "lazy", "--param",
                   "/P", "--grad", "/Gemb", "--memory-limit", "100K"), code=2)
    one_error_line(r, "step.h5:/Gemb: holding this rank's rows of its entries needs", "coo exchange over the budget")
    check(not os.path.exists(out) and not leftovers(work), "coo exchange over the budget: output or temporary left")


def root_alone_cases(cli, cli_mpi, mpi, work, source):
    """A step that holds whole tensors (here resuming from a coo state of float64 values for a
    float32 parameter, its rows going back: read once, and the whole step sums its entries in
    float64): the root steps it alone."""
    sparse = os.path.join(work, "coo_state.h5")
    with h5py.File(sparse, "w") as f:
        f["param"] = np.random.default_rng(3).standard_normal((50, 4)).astype("float32")
        f["G"] = np.random.default_rng(4).standard_normal((50, 4)).astype("float32")
        f["state/step"] = np.int64(1)
        f["last_update"] = np.ones(50, dtype=np.int64)
        write_coo(f, "state/sum", [50, 4], np.array([[40, 3], [1, 2]]), np.array([0.5, 1.5], dtype="float64"))
    template = ["step", sparse, "-o", "{out}", "--optimizer", "adagrad", "--semantics", "dense", "--state-from", sparse,
                "--grad", "/G"]
    reference = os.path.join(work, "step_whole_reference.h5")
    expected = run([cli, *[a.replace("{out}", reference) for a in template]])
    report = json.loads(run([cli, *[a.replace("{out}", reference) for a in template], "--json"]).stdout)
    check(not report["streamed"], "whole step: streamed by the serial tool (choose a state it holds whole)")
    for ranks in (2, 3):
        out = os.path.join(work, f"step_whole{ranks}.h5")
        r = run(mpirun(mpi, ranks, cli_mpi, *[a.replace("{out}", out) for a in template]))
        same_files(reference, out, f"whole step -np {ranks}")
        check(r.stdout.replace(out, reference) == expected.stdout, f"whole step -np {ranks}: printed {r.stdout!r}")
        check(r.stderr == expected.stderr, f"whole step -np {ranks}: notes {r.stderr!r}")


def inspect_cases(cli, cli_mpi, mpi, work, source):
    """inspect --count divides each dataset's rows (or allocated chunks) among the ranks and
    sums the counts: the serial tool's report for every N, with chunks left unwritten (counted
    as a nonzero fill value), contiguous data read in many row ranges, and a masked element."""
    counted = os.path.join(work, "counted.h5")
    rng = np.random.default_rng(13)
    with h5py.File(counted, "w") as f:
        sparse_rows = rng.standard_normal((1001, 30)) * (rng.random((1001, 30)) < 0.2)
        f["contiguous"] = sparse_rows
        d = f.create_dataset("unwritten", (500, 40), chunks=(16, 40), dtype="float32", fillvalue=2.5)
        d[0:40] = 0.0                                        # 3 chunks written, the rest fill
        d[100:116] = rng.standard_normal((16, 40)) * (rng.random((16, 40)) < 0.5)
        f.create_dataset("flags", data=rng.random((333, 7)) < 0.3, chunks=(10, 7))
        f["scalar"] = 3.0
        m = f.create_group("masked")
        m["data"] = rng.standard_normal((20, 6)).astype("float32")
        m["mask"] = rng.random((20, 6)) < 0.4
        m.attrs["encoding-type"] = "masked_tensor"
        m.attrs["encoding-version"] = "0.1.0"
    for path in (source, counted):
        for limit in ("1K", "auto"):
            args = ["inspect", path, "--count", "--memory-limit", limit]
            text = run([cli, *args]).stdout
            expected = comparable(json.loads(run([cli, *args, "--json"]).stdout))
            for ranks in (1, 2, 3, 4):
                what = f"inspect --count {os.path.basename(path)} {limit} -np {ranks}"
                check(run(mpirun(mpi, ranks, cli_mpi, *args)).stdout == text, f"{what}: text differs")
                check(comparable(json.loads(run(mpirun(mpi, ranks, cli_mpi, *args, "--json")).stdout)) == expected,
                      f"{what}: report differs")



def run_cases(cli, cli_mpi, mpi, work, source):
    """`run` hands its inputs to whichever rank is free: the same outputs, report and exit code."""
    folder = os.path.join(work, "batch_in")
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(5)
    for i in range(7):
        with h5py.File(os.path.join(folder, f"in{i}.h5"), "w") as f:
            f["W"] = rng.standard_normal((50 + 13 * i, 16)).astype("float32")
    with h5py.File(os.path.join(folder, "in7.h5"), "w") as f:  # fails: no /W
        f["other"] = np.ones((3, 3))

    def batch(out):
        return write_batch(work, folder, out, "csr", {"method": "threshold", "threshold": 0.5})

    reference = os.path.join(work, "batch_reference")
    expected = run([cli, "run", batch(reference), "--json"], code=1)
    expected_text = run([cli, "run", batch(reference)], code=1)
    for ranks in (1, 2, 3):
        out = os.path.join(work, f"batch_np{ranks}")
        r = run(mpirun(mpi, ranks, cli_mpi, "run", batch(out), "--json"), code=1)
        check(sorted(os.listdir(out)) == sorted(os.listdir(reference)), f"run -np {ranks}: outputs {os.listdir(out)}")
        for name in os.listdir(reference):
            same_files(os.path.join(reference, name), os.path.join(out, name), f"run -np {ranks} {name}")
        check(batch_outcome(r.stdout.replace(out, reference)) == batch_outcome(expected.stdout),
              f"run -np {ranks}: report differs")
        errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
        check(errors == [line for line in expected.stderr.splitlines() if line.startswith("error:")],
              f"run -np {ranks}: error lines {errors}")
        text = run(mpirun(mpi, ranks, cli_mpi, "run", batch(out)), code=1).stdout
        check(text.replace(out, reference) == expected_text.stdout, f"run -np {ranks}: printed {text!r}")


def one_error_line(r, pattern, what):
    lines = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    check(len(lines) == 1, f"{what}: {len(lines)} error lines: {r.stderr[-2000:]}")
    check(pattern in lines[0], f"{what}: {lines[0]!r} lacks {pattern!r}")


def leftovers(folder):
    return [name for name in os.listdir(folder) if name.startswith(".sw-tmp")]


def interrupt_case(cli_mpi, mpi, work):
    """Ctrl-C on mpirun while the ranks write: every rank stops, nothing is left."""
    big = os.path.join(work, "interrupted.h5")
    with h5py.File(big, "w") as f:
        f["W"] = np.random.default_rng(4).standard_normal((8192, 8192)).astype("float32")
    out = os.path.join(work, "interrupted_out.h5")
    # coo of 256 MiB under a 64 KiB budget, gzipped: thousands of small collective compressed
    # writes, about 90 seconds, far longer than mpirun takes to stop its ranks after a SIGINT
    # (about a second here). Without gzip the write took about 3 s, and once in CI it ended
    # before the signal reached the ranks, leaving a complete output.
    child = subprocess.Popen(mpirun(mpi, 2, cli_mpi, "sparsify", big, "-o", out, "--method", "threshold",
                                    "--threshold", "0.5", "--layout", "coo", "--memory-limit", "64K", "--gzip", "1"),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while not leftovers(work) and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    check(child.poll() is None, "interrupt: the run ended before it wrote anything; make the input larger")
    time.sleep(0.1)
    child.send_signal(signal.SIGINT)  # what Ctrl-C sends mpirun (its ranks have process groups of their own)
    child.communicate(timeout=60)
    check(child.returncode != 0, "interrupt: mpirun exited 0")
    time.sleep(0.5)
    check(not os.path.exists(out) and not leftovers(work), f"interrupt: left {os.listdir(work)}")
    ranks = subprocess.run(["pgrep", "-f", out], capture_output=True, text=True).stdout.split()
    check(not ranks, f"interrupt: ranks still running: {ranks}")
    os.remove(big)


def failure_cases(cli_mpi, mpi, work):
    # A corrupt chunk among the last rows: only the last rank reads it.
    bad = os.path.join(work, "bad.h5")
    rng = np.random.default_rng(3)
    with h5py.File(bad, "w") as f:
        f.create_dataset("W", data=rng.standard_normal((4000, 64)).astype("float32"), chunks=(100, 64), compression="gzip")
    with h5py.File(bad, "r") as f:
        info = f["W"].id.get_chunk_info(f["W"].id.get_num_chunks() - 2)
    with open(bad, "r+b") as f:
        f.seek(info.byte_offset)
        f.write(b"\xff" * info.size)
    out = os.path.join(work, "never.h5")
    for ranks in (2, 3):
        for layout in ("dense", "csr", "csc"):
            r = run(mpirun(mpi, ranks, cli_mpi, "sparsify", bad, "-o", out, "--method", "threshold", "--threshold", "0.5",
                           "--layout", layout, "--memory-limit", "128K"), code=3)
            one_error_line(r, "bad.h5:/W: cannot read values", f"corrupt chunk -np {ranks} {layout}")
            check(not os.path.exists(out) and not leftovers(work), f"corrupt chunk -np {ranks}: output or temporary left")
    r = run(mpirun(mpi, 3, cli_mpi, "sparsify", bad, "--method", "threshold"), code=2)
    one_error_line(r, "--output is required", "usage error -np 3")
    r = run(mpirun(mpi, 2, cli_mpi, "sparsify", os.path.join(work, "missing.h5"), "-o", out, "--method", "threshold",
                   "--threshold", "1"), code=3)
    one_error_line(r, "missing.h5: cannot open: no such file", "missing input -np 2")
    check(not os.path.exists(out) and not leftovers(work), "missing input: output or temporary left")


def disk_full_cases(cli_mpi, mpi, work):
    """A full disk (a 3 MB tmpfs; root only): every subcommand that writes, on 2 and 3 ranks,
    exits 3 with one error line naming the dataset and the free space, no output and no
    temporary file; so does a scratch file (TMPDIR, a 1 MiB ext4 disk) that fills. (A full disk
    failed inside MPI-IO's collective writes, where the ranks parted ways: it hung, crashed in
    MPI_Finalize or printed an error per rank.)"""
    if os.geteuid() != 0:
        print("disk-full cases skipped: mounting a tmpfs needs root")
        return
    full = os.path.join(work, "full")
    with mounted(["-t", "tmpfs", "-o", "size=3m", "tmpfs"], full) as ready:
        if not ready:
            return
        source = os.path.join(work, "full_source.h5")
        with h5py.File(source, "w") as f:
            f["x"] = np.random.default_rng(9).standard_normal((2048, 2048)).astype("float32")  # 16 MiB
            f["small"] = np.eye(8, dtype="float32")
        out = os.path.join(full, "o.h5")
        cases = [(["convert", source, out, "--layout", "csr"], "o.h5:/x/data: writing it needs 16.0 MiB"),
                 (["sparsify", source, "-o", out, "--method", "threshold", "--threshold", "0.5", "--layout", "coo"],
                  "o.h5:/x/indices: writing it needs"),
                 (["sparsify", source, "-o", out, "--method", "threshold", "--threshold", "0.5"],
                  "o.h5:/x: writing it needs 16.0 MiB"),
                 (["sparsify", source, "-o", out, "--method", "threshold", "--threshold", "0.5", "--memory-limit", "1M"],
                  "full_source.h5:/x: streaming it writes up to 16.0 MiB"),
                 (["eval", "--expr", "x * 2", "--input", f"x={source}:/x", "-o", out], "o.h5:/result: writing it needs"),
                 (["convert", source, out, "--layout", "coo", "--dataset", "/small", "--keep-others"],
                  "o.h5:/x: copying it needs 16.0 MiB")]
        for ranks in (2, 3):
            for args, pattern in cases:
                r = run(mpirun(mpi, ranks, cli_mpi, *args), code=3)
                one_error_line(r, pattern, f"full disk -np {ranks} {' '.join(args[:2])}")
                check("free on the output's file system" in r.stderr, f"full disk: {r.stderr[-500:]}")
                check(not os.listdir(full), f"full disk -np {ranks}: left {os.listdir(full)}")
        # A coo whose rows go back, into csc under 1M: every rank sorts all of it by row into a
        # scratch file in TMPDIR (a 1 MiB ext4 disk: a tmpfs is not spilled to; Open MPI's
        # session folder stays in /tmp), which fills. One agreed error naming the element and the
        # folder, exit 3, no output.
        rng = np.random.default_rng(13)
        with h5py.File(source, "a") as f:
            write_coo(f, "shuffled", (4096, 512), np.stack([rng.integers(0, 4096, 400_000), rng.integers(0, 512, 400_000)]),
                      rng.standard_normal(400_000).astype("float32"))
        elsewhere = os.path.join(work, "spill_out.h5")
        scratch = os.path.join(work, "scratch")
        with small_disk(work, "1M", scratch) as ready:
            env = dict(os.environ, TMPDIR=scratch, OMPI_MCA_orte_tmpdir_base="/tmp")
            for ranks in (2, 3) if ready else ():
                r = subprocess.run(mpirun(mpi, ranks, cli_mpi, "convert", source, elsewhere, "--layout", "csc", "--dataset",
                                          "/shuffled", "--memory-limit", "1M"), capture_output=True, text=True, timeout=300,
                                   env=env)
                check(r.returncode == 3, f"spill to a full TMPDIR -np {ranks}: exit {r.returncode}: {r.stderr[-1000:]}")
                one_error_line(r, f"full_source.h5:/shuffled: cannot spill its entries, sorted by row, to {scratch} "
                               "(TMPDIR): No space left on device", f"spill to a full TMPDIR -np {ranks}")
                check(not os.path.exists(elsewhere) and os.listdir(scratch) == ["lost+found"],
                      f"spill to a full TMPDIR -np {ranks}: left files")


def disk_fills_cases(cli_mpi, mpi, work):
    """The disk fills after the first blocks are written (tests/cli/disk_fills.c, preloaded on
    every rank): on 2 and 3 ranks every subcommand exits 3 with one error line naming the
    output, leaves nothing, and no rank waits for ever. (A rank whose write failed inside the
    collective close of the discarded file left the others waiting there.)"""
    library = os.environ.get("SW_DISK_FILLS")
    if not library or not os.path.exists(library):
        print("disk-fills cases skipped: tests/cli/disk_fills.c was not built ($SW_DISK_FILLS)")
        return
    source = os.path.join(work, "fills_source.h5")
    rng = np.random.default_rng(11)
    with h5py.File(source, "w") as f:
        f["x"] = rng.standard_normal((4096, 256)).astype("float32")  # 4 MiB
        g = np.zeros((4096, 256), "float32")
        g[rng.integers(0, 4096, 500)] = 1
        f["g"] = g
    # A csr of x's values over 0.5 (about 1.3 MiB stored), for csc's column panels: a file of
    # its own, since the sparsify commands take every element of theirs.
    sparse_source = os.path.join(work, "fills_csr.h5")
    with h5py.File(source) as src, h5py.File(sparse_source, "w") as f:
        kept = np.where(src["x"][()] > 0.5, src["x"][()], 0).astype("float32")
        s = f.create_group("s")
        s.attrs["encoding-type"], s.attrs["encoding-version"] = "csr_matrix", "0.1.0"
        s.attrs["shape"] = np.array(kept.shape, dtype=np.int64)
        s["indptr"] = np.concatenate([[0], np.cumsum((kept != 0).sum(axis=1))]).astype(np.int64)
        s["indices"] = np.nonzero(kept)[1].astype(np.int64)
        s["data"] = kept[kept != 0]
    folder = os.path.join(work, "filling")
    os.makedirs(folder, exist_ok=True)
    out = os.path.join(folder, "o.h5")
    env = dict(os.environ, LD_PRELOAD=library, SW_FILL_PATH=folder, SW_FILL_CAPACITY=str(1024 * 1024))
    exported = [a for name in ("LD_PRELOAD", "SW_FILL_PATH", "SW_FILL_CAPACITY") for a in ("-x", name)]
    limit = ["--memory-limit", "1M"]
    commands = [["sparsify", source, "-o", out, "--method", "threshold", "--threshold", "0.5", "--layout", layout, *limit]
                for layout in ("dense", "csr", "coo")]
    commands += [["sparsify", source, "-o", out, "--method", "data-norm", "--sparsity-level", "0.5", "--block", "4x4", *limit],
                 ["convert", source, out, "--layout", "csr", *limit],
                 ["convert", sparse_source, out, "--layout", "csc", *limit],
                 ["eval", "--expr", "x * 2", "--input", f"x={source}:/x", "-o", out, *limit],
                 ["step", source, "-o", out, "--param", "/x", "--grad", "/g", "--optimizer", "adam", "--semantics", "lazy", *limit]]
    for ranks in (2, 3):
        for args in commands:
            what = f"disk fills -np {ranks} {' '.join(args[:1] + args[-8:])}"
            command = [mpi, "--allow-run-as-root", "--oversubscribe", *exported, "-np", str(ranks), cli_mpi, *args]
            r = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
            check(r.returncode == 3, f"{what}: exit {r.returncode}, expected 3: {r.stderr[-2000:]}")
            # One line, or one per rank that failed inside a collective write while another
            # waited there (the job is then aborted; which ranks fail depends on MPI-IO's
            # aggregators). Each names the output: a dataset's write its dataset; the close's
            # flush, which writes every dataset's last metadata together, the file.
            # (OpenMPI's own lines about the failed write may share a line with ours.)
            lines = [line[line.index("error: "):] for line in r.stderr.splitlines() if "error: " in line]
            check(1 <= len(lines) <= ranks, f"{what}: {len(lines)} error lines: {r.stderr[-2000:]}")
            for line in lines:
                check(line.startswith(f"error: {out}:") and "(disk full?)" in line, f"{what}: {line!r}")
            check(not os.listdir(folder), f"{what}: left {os.listdir(folder)}")


def alone_cases(cli, cli_mpi, work, source):
    """Started without mpirun, sparsity-mpi is one rank (Open MPI's singleton, without its
    daemon: RankSession settles it) and writes what `sparsity` writes; `run` too, whose inputs
    are handed out through an MPI window."""
    version = run([cli_mpi, "--version"]).stdout
    check("MPI: enabled" in version and "1 rank on 1 machine" in version, f"--version alone: {version!r}")
    args = ["sparsify", source, *METHODS["data-norm"], "--layout", "csr", "--memory-limit", "64K", "--dataset", "/W",
            "--dataset", "/E", "--json"]
    reference, out = os.path.join(work, "alone_reference.h5"), os.path.join(work, "alone.h5")
    expected = json.loads(run([cli, *args, "-o", reference]).stdout)
    r = run([cli_mpi, *args, "-o", out])
    same_files(reference, out, "sparsify alone")
    check(comparable(json.loads(r.stdout)) == comparable(expected), "sparsify alone: report differs")
    folder = os.path.join(work, "alone_batch")
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(2)
    for i in range(3):
        with h5py.File(os.path.join(folder, f"in{i}.h5"), "w") as f:
            f["W"] = rng.standard_normal((40 + i, 8)).astype("float32")

    def batch(out):
        return write_batch(work, folder, out, "coo", {"method": "threshold", "threshold": 0.5})

    reference, out = os.path.join(work, "alone_batch_reference"), os.path.join(work, "alone_batch_out")
    expected = batch_outcome(run([cli, "run", batch(reference), "--json"]).stdout)
    r = run([cli_mpi, "run", batch(out), "--json"])
    check(sorted(os.listdir(out)) == sorted(os.listdir(reference)), f"run alone: outputs {os.listdir(out)}")
    for name in os.listdir(reference):
        same_files(os.path.join(reference, name), os.path.join(out, name), f"run alone {name}")
    check(batch_outcome(r.stdout.replace(out, reference)) == expected, "run alone: report differs")


def write_batch(work, folder, out, layout, sparsify, **settings):
    """A BATCH.json over `folder`'s in*.h5 (their /W) that writes `out`/{stem}.sparse.h5, `out`
    emptied first (a folder kept from an earlier run must not pass for this run's outputs)."""
    shutil.rmtree(out, ignore_errors=True)
    path = os.path.join(work, f"batch_{os.path.basename(out)}.json")
    with open(path, "w") as f:
        json.dump({"version": 1, "inputs": [os.path.join(folder, "in*.h5")], "datasets": ["/W"], **settings,
                   "output": {"layout": layout, "path": os.path.join(out, "{stem}.sparse.h5")}, "sparsify": sparsify}, f)
    return path


def batch_outcome(stdout):
    """A `run --json` report without what differs between runs (the batch file, each input's time)."""
    report = comparable(json.loads(stdout))
    report.pop("batch")
    for entry in report["inputs"]:
        entry.pop("seconds")
    return report


def others(cli, cli_mpi, mpi, work, source):
    version = run(mpirun(mpi, 2, cli_mpi, "--version")).stdout
    check("MPI: enabled" in version and "2 ranks on 1 machine" in version and "parallel" in version, f"--version: {version!r}")
    # Each rank knows its place among its machine's ranks (which GPU it takes): one is first.
    version = run(mpirun(mpi, 3, cli_mpi, "--version")).stdout
    check("3 ranks on 1 machine\n" in version, f"--version on 3 ranks: {version!r}")
    alone_cases(cli, cli_mpi, work, source)
    failure_cases(cli_mpi, mpi, work)
    disk_full_cases(cli_mpi, mpi, work)
    disk_fills_cases(cli_mpi, mpi, work)
    interrupt_case(cli_mpi, mpi, work)
    convert_cases(cli, cli_mpi, mpi, work, source)
    repair_notice_cases(cli, cli_mpi, mpi, work)
    eval_cases(cli, cli_mpi, mpi, work, source)
    inspect_cases(cli, cli_mpi, mpi, work, source)
    root_alone_cases(cli, cli_mpi, mpi, work, source)
    run_cases(cli, cli_mpi, mpi, work, source)


def gpu_cases(cli, cli_mpi, mpi, work, source):
    """--device cuda across ranks (CTest label gpu: skipped without a CUDA device): each rank
    takes its machine's GPUs in turn (docs/SCALING.md, "GPUs"), and every command writes and
    reports what `sparsity --device cuda` does: sparsify (every method, dense and sparse
    layouts), step (dense, lazy and masked), eval, and `run` with its inputs on several ranks."""
    version = run([cli, "--version"]).stdout
    if "CUDA: compiled in, unavailable" in version or "not compiled in" in version:
        print("no CUDA device: skipped")
        raise SystemExit(77)
    cuda = ["--device", "cuda"]
    for name, method in METHODS.items():
        for layout in ("dense", "csr", "coo"):
            args = ["sparsify", source, *method, *cuda, "--layout", layout, "--dataset", "/W", "--dataset", "/tiny", "--json"]
            report = matches_serial(cli, cli_mpi, mpi, work, args, (1, 2, 3), f"cuda sparsify {name} {layout}")
            if name != "row-norm":  # the methods with a CUDA kernel ran on the GPU
                check(all(d["device"] == "cuda" for d in report["datasets"]), f"cuda sparsify {name}: {report['datasets']}")
    rng = np.random.default_rng(9)
    steps = os.path.join(work, "gpu_step.h5")
    with h5py.File(steps, "w") as f:
        f["P"] = rng.standard_normal((1003, 16)).astype("float32")
        f["G"] = rng.standard_normal((1003, 16)).astype("float32")
        f["M"] = rng.random((1003, 16)) < 0.4
        write_coo(f, "Gemb", [1003, 16], rng.integers(0, 1003, 2000)[None, :], rng.standard_normal((2000, 16)).astype("float32"))
    for case in (["--optimizer", "adam", "--semantics", "dense", "--grad", "/G", "--grad", "/G"],
                 ["--optimizer", "adagrad", "--semantics", "lazy", "--grad", "/Gemb", "--grad", "/G", "--compare", "dense"],
                 ["--optimizer", "sgd", "--semantics", "masked", "--lr", "0.1", "--momentum", "0.9", "--grad", "/G",
                  "--mask", "/M"]):
        args = ["step", steps, "--param", "/P", *case, *cuda, "--json"]
        report = matches_serial(cli, cli_mpi, mpi, work, args, (2, 3), f"cuda step {' '.join(case)}")
        check(report["device"] == "cuda", f"cuda step {case}: ran on {report['device']}")
    matches_serial(cli, cli_mpi, mpi, work, ["eval", "--expr", "sqrt(abs(x)) * y - x", "--input", f"x={source}:/W",
                                             "--input", f"y={source}:/V", *cuda, "--json"], (2, 3), "cuda eval")
    folder = os.path.join(work, "gpu_batch_in")
    os.makedirs(folder, exist_ok=True)
    for i in range(6):
        with h5py.File(os.path.join(folder, f"in{i}.h5"), "w") as f:
            f["W"] = rng.standard_normal((500 + 13 * i, 64)).astype("float32")

    def batch(out):
        return write_batch(work, folder, out, "csr", {"method": "n-m", "n": 2, "m": 4}, device="cuda")

    reference = os.path.join(work, "gpu_batch_reference")
    expected = batch_outcome(run([cli, "run", batch(reference), "--json"]).stdout)
    for ranks in (2, 3):
        out = os.path.join(work, f"gpu_batch_np{ranks}")
        r = run(mpirun(mpi, ranks, cli_mpi, "run", batch(out), "--json"))
        check(sorted(os.listdir(out)) == sorted(os.listdir(reference)), f"cuda run -np {ranks}: outputs {os.listdir(out)}")
        for name in os.listdir(reference):
            same_files(os.path.join(reference, name), os.path.join(out, name), f"cuda run -np {ranks} {name}")
        check(batch_outcome(r.stdout.replace(out, reference)) == expected, f"cuda run -np {ranks}: report differs")
    print(run(mpirun(mpi, 2, cli_mpi, "--version")).stdout)


PARTS = {
    "gpu": gpu_cases,
    "sparsify": sparsify_cases,
    "step": lambda cli, cli_mpi, mpi, work, source: step_cases(cli, cli_mpi, mpi, work),
    "others": others,
}


def main():
    cli, cli_mpi, mpi, work, part = sys.argv[1:6]
    unmount_under(work)
    os.makedirs(work, exist_ok=True)
    PARTS[part](cli, cli_mpi, mpi, work, make_inputs(work))
    print("ok")


if __name__ == "__main__":
    main()
