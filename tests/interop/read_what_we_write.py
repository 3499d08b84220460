#!/usr/bin/python3
"""Other tools read what `sparsity convert` writes.

    read_what_we_write.py SPARSITY SAMPLE.h5 WORKDIR

Converts the bundled sample to every layout, then reads the results with anndata's
read_elem (csr/csc become scipy matrices), scipy and plain h5py, and compares them with the
sample's values computed independently in numpy."""
import os
import subprocess
import sys

import h5py
import numpy as np
import scipy.sparse as sp
from anndata.experimental import read_elem


def expected_dense(sample):
    with h5py.File(sample) as f:
        out = {
            "/emb": f["emb"][:],
            "/W": f["W"][:],
            "/labels": f["labels"][:].astype(np.float64),
        }
        p = f["pixels"]
        out["/pixels"] = sp.csr_matrix((p["data"][:], p["indices"][:], p["indptr"][:]), shape=tuple(p.attrs["shape"])).toarray()
        g0 = np.zeros(tuple(f["g0"].attrs["shape"]), np.float32)
        np.add.at(g0, f["g0/indices"][0], f["g0/values"][:])
        out["/g0"] = g0
        g1 = np.zeros(tuple(f["g1"].attrs["shape"]), np.float32)
        g1[f["g1/indices"][:]] = f["g1/data"][:]
        out["/g1"] = g1
        mask = f["ink/mask"][:]
        out["/ink"] = np.where(mask, f["ink/data"][:], 0)
        out["/ink:mask"] = mask
    return out


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)


def main(cli, sample, work):
    os.makedirs(work, exist_ok=True)
    want = expected_dense(sample)
    for layout in ["dense", "coo", "csr", "csc", "row_sparse"]:
        out = os.path.join(work, f"sample_{layout}.h5")
        datasets = [] if layout not in ("csr", "csc") else sum([["--dataset", p] for p in ["/emb", "/W", "/pixels", "/g0", "/g1", "/ink"]], [])
        subprocess.run([cli, "convert", sample, out, "--layout", layout] + datasets, check=True, capture_output=True)
        with h5py.File(out) as f:
            for path, dense in want.items():
                if path.endswith(":mask") or (path not in f):
                    continue
                element = f[path]
                enc = element.attrs["encoding-type"]
                check(isinstance(enc, str), f"{layout}{path}: encoding-type must be a str for h5py")
                check(element.attrs["encoding-version"] in ("0.1.0", "0.2.0"), f"{layout}{path}: encoding-version")
                if enc == "masked_tensor":
                    data_elem, mask_elem = element["data"], element["mask"]
                    got = decode(data_elem, layout)
                    mask = decode(mask_elem, layout).astype(bool) if not isinstance(mask_elem, h5py.Dataset) else mask_elem[:]
                    check(mask_elem["data"].dtype == bool if isinstance(mask_elem, h5py.Group) and "data" in mask_elem else True, "sparse mask values must be bool")
                    if isinstance(mask_elem, h5py.Dataset):
                        check(mask_elem.dtype == bool, f"{layout}{path}: mask dtype {mask_elem.dtype}, h5py must read bool")
                    check(np.array_equal(mask, want["/ink:mask"]), f"{layout}{path}: mask differs")
                    check(np.array_equal(np.where(mask, got, 0), dense), f"{layout}{path}: masked values differ")
                    continue
                got = decode(element, layout)
                check(got.shape == dense.shape, f"{layout}{path}: shape {got.shape} != {dense.shape}")
                check(np.array_equal(got, dense), f"{layout}{path}: values differ (max {np.abs(got - dense).max()})")
    print("ok: h5py, scipy and anndata read every layout we write")


def decode(element, layout):
    if isinstance(element, h5py.Dataset):
        return element[()]
    enc = element.attrs["encoding-type"]
    shape = tuple(int(s) for s in element.attrs["shape"])
    if enc in ("csr_matrix", "csc_matrix"):
        m = read_elem(element)          # anndata builds the scipy matrix itself
        check(sp.issparse(m) and m.format == enc[:3], f"anndata read {type(m)} for {enc}")
        check(m.has_sorted_indices, "indices must be sorted (canonical)")
        return m.toarray()
    if enc == "coo_tensor":
        idx = element["indices"][:]
        check(idx.dtype == np.int64 and idx.ndim == 2, "coo indices must be int64 [ndim, nnz]")
        values = element["values"][:]
        out = np.zeros(shape, values.dtype)
        np.add.at(out, tuple(idx), values)
        return out
    if enc == "row_sparse":
        rows = element["indices"][:]
        check(np.all(np.diff(rows) > 0), "row_sparse indices sorted unique")
        out = np.zeros(shape, element["data"].dtype)
        out[rows] = element["data"][:]
        return out
    raise SystemExit(f"FAIL: unexpected encoding {enc}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
