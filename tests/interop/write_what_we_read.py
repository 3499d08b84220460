#!/usr/bin/python3
"""We read what other tools write.

    write_what_we_read.py SPARSITY WORKDIR

Writes files with anndata's write_elem (scipy csr/csc, float and integer data), 10x
Genomics layouts (Cell Ranger 3 `matrix` group and Cell Ranger 2 per-genome groups),
h5sparse groups, a scipy matrix with unsorted duplicate indices, and plain datasets of many
dtypes and ranks (0-d, empty, float16, ints, bool); then checks `sparsity inspect --json` and
that `sparsity convert --layout dense` reproduces the values."""
import json
import os
import subprocess
import sys

import h5py
import numpy as np
import scipy.sparse as sp
from anndata.experimental import write_elem

rng = np.random.default_rng(7)


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)


def random_sparse(shape, density, dtype):
    m = sp.random(*shape, density=density, format="csr", random_state=1, dtype=np.float64)
    m.data = (m.data * 10 + 1).astype(dtype)
    return m


def main(cli, work):
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "theirs.h5")
    expected = {}
    csr32 = random_sparse((40, 30), 0.2, np.float32)
    csc64 = random_sparse((25, 50), 0.1, np.float64).tocsc()
    ints = random_sparse((10, 12), 0.3, np.int32)
    unsorted = sp.csr_matrix((np.array([1.0, 2.0, 3.0, 4.0]), np.array([2, 0, 2, 1]), np.array([0, 3, 4])), shape=(2, 3))
    genes, cells = 30, 20
    tenx = random_sparse((genes, cells), 0.25, np.int32).tocsc()
    with h5py.File(path, "w") as f:
        write_elem(f, "X", csr32)
        write_elem(f, "layers/counts", csc64)
        write_elem(f, "layers/ints", ints)
        write_elem(f, "unsorted", unsorted)
        m = f.create_group("matrix")                      # Cell Ranger 3
        m["data"], m["indices"], m["indptr"] = tenx.data, tenx.indices, tenx.indptr
        m["shape"] = np.array([genes, cells], dtype=np.int32)
        m["barcodes"] = np.array([f"AAAC-{i}".encode() for i in range(cells)])
        feats = m.create_group("features")
        feats["id"] = np.array([f"G{i}".encode() for i in range(genes)])
        g = f.create_group("GRCh38")                      # Cell Ranger 2
        g["data"], g["indices"], g["indptr"] = tenx.data, tenx.indices, tenx.indptr
        g["shape"] = np.array([genes, cells], dtype=np.int64)
        g["genes"] = np.array([f"G{i}".encode() for i in range(genes)])
        h = f.create_group("h5s")                         # h5sparse
        h.attrs["h5sparse_format"] = "csr"
        h.attrs["h5sparse_shape"] = (40, 30)
        h["data"], h["indices"], h["indptr"] = csr32.data, csr32.indices, csr32.indptr
        f["scalar"] = np.float64(2.5)
        f["empty"] = np.zeros((0, 3), np.float32)
        f["half"] = rng.standard_normal((4, 5)).astype(np.float16)
        f["bools"] = rng.random((3, 4)) > 0.5
        f["u8"] = rng.integers(0, 255, (6,), dtype=np.uint8)
        f["i64"] = rng.integers(-1000, 1000, (2, 3, 4), dtype=np.int64)
    expected = {
        "/X": ("csr", "csr_matrix", csr32.toarray(), csr32.nnz, "float32"),
        "/layers/counts": ("csc", "csc_matrix", csc64.toarray(), csc64.nnz, "float64"),
        "/layers/ints": ("csr", "csr_matrix", ints.toarray(), ints.nnz, "int32"),
        "/unsorted": ("csr", "csr_matrix", unsorted.toarray(), 4, "float64"),
        "/matrix": ("csc", "10x", tenx.toarray(), tenx.nnz, "int32"),
        "/GRCh38": ("csc", "10x", tenx.toarray(), tenx.nnz, "int32"),
        "/h5s": ("csr", "h5sparse", csr32.toarray(), csr32.nnz, "float32"),
    }
    with h5py.File(path) as f:
        for name in ["scalar", "empty", "half", "bools", "u8", "i64"]:
            value = f[name][()]
            expected["/" + name] = ("dense", "array", value, None, str(f[name].dtype))

    listing = json.loads(subprocess.run([cli, "inspect", path, "--json"], check=True, capture_output=True, text=True).stdout)
    check(listing["file"] == path, "inspect names the file")
    by_path = {d["path"]: d for d in listing["datasets"]}
    check(set(by_path) == set(expected), f"listed {sorted(by_path)}, expected {sorted(expected)}")
    for p, (layout, encoding, dense, nnz, dtype) in expected.items():
        d = by_path[p]
        check(d["layout"] == layout, f"{p}: layout {d['layout']} != {layout}")
        check(d["encoding"] == encoding, f"{p}: encoding {d['encoding']} != {encoding}")
        check(tuple(d["shape"]) == dense.shape, f"{p}: shape {d['shape']} != {dense.shape}")
        check(d["dtype"] == ("bool" if dtype == "bool" else dtype), f"{p}: dtype {d['dtype']} != {dtype}")
        check(d["nnz"] == nnz, f"{p}: nnz {d['nnz']} != {nnz}")

    out = os.path.join(work, "theirs_dense.h5")
    result = subprocess.run([cli, "convert", path, out, "--layout", "dense"], capture_output=True, text=True)
    check(result.returncode == 0, f"convert failed: {result.stderr}")
    check("CSR I7" in result.stderr and "1 duplicates summed" in result.stderr, f"unsorted csr notice missing: {result.stderr}")
    check("converted float16 to float32" in result.stderr, "dtype notice missing")
    with h5py.File(out) as f:
        for p, (_, _, dense, _, _) in expected.items():
            got = f[p][()]
            check(got.shape == dense.shape, f"{p}: shape {got.shape}")
            check(np.array_equal(got, dense.astype(got.dtype)), f"{p}: values differ")
    print("ok: anndata, 10x, h5sparse and plain datasets of every dtype are read")


if __name__ == "__main__":
    main(*sys.argv[1:3])
