#!/usr/bin/python3
"""Writes the malformed HDF5 files of the bad-input tests into the folder given as argv[1].

Each file breaks exactly one rule; the CTest cases in this folder name the file, the exit
code and the message the CLI must print."""
import os
import sys

import h5py
import numpy as np


def tag(obj, encoding, version="0.1.0"):
    obj.attrs["encoding-type"] = encoding
    obj.attrs["encoding-version"] = version


def csr(path, data, indices, indptr, shape):
    with h5py.File(path, "w") as f:
        g = f.create_group("m")
        tag(g, "csr_matrix")
        g.attrs["shape"] = np.array(shape, dtype=np.int64)
        g["data"] = np.asarray(data, dtype=np.float32)
        g["indices"] = np.asarray(indices, dtype=np.int32)
        g["indptr"] = np.asarray(indptr, dtype=np.int32)


def coo(path, indices, values, shape):
    with h5py.File(path, "w") as f:
        g = f.create_group("t")
        tag(g, "coo_tensor")
        g.attrs["shape"] = np.array(shape, dtype=np.int64)
        g["indices"] = np.asarray(indices, dtype=np.int64)
        g["values"] = np.asarray(values, dtype=np.float32)


def rsp(path, indices, data, shape):
    with h5py.File(path, "w") as f:
        g = f.create_group("r")
        tag(g, "row_sparse")
        g.attrs["shape"] = np.array(shape, dtype=np.int64)
        g["indices"] = np.asarray(indices, dtype=np.int64)
        g["data"] = np.asarray(data, dtype=np.float32)


def main(out):
    os.makedirs(out, exist_ok=True)
    j = lambda name: os.path.join(out, name)

    with open(j("not_hdf5.h5"), "w") as f:
        f.write("this is a text file, not HDF5\n")
    with h5py.File(j("good.h5"), "w") as f:
        f["x"] = np.arange(12, dtype=np.float32).reshape(3, 4)
        f["cube"] = np.ones((2, 3, 4), dtype=np.float32)
        f["names"] = np.array([b"a", b"b"])          # not numeric: skipped or refused by name
    with h5py.File(j("scalar.h5"), "w") as f:
        f["s"] = np.float32(3)                       # 0-d: refused by the methods that need a dim
    with h5py.File(j("big.h5"), "w") as f:
        f["x"] = np.ones((512, 512), dtype=np.float64)
    with open(j("big.h5"), "rb") as f:
        head = f.read(4096)
    with open(j("truncated.h5"), "wb") as f:
        f.write(head)

    csr(j("csr_decreasing_indptr.h5"), [1, 2, 3], [0, 1, 2], [0, 2, 1, 3], (3, 3))
    csr(j("csr_column_out_of_range.h5"), [1, 2], [0, 7], [0, 1, 2], (2, 3))
    csr(j("csr_length_mismatch.h5"), [1, 2, 3], [0, 1], [0, 1, 2], (2, 3))
    coo(j("coo_index_out_of_range.h5"), [[0, 5], [1, 1]], [1, 2], (4, 4))
    coo(j("absurd_shape.h5"), [[0], [0]], [1], (2 ** 40, 2 ** 40))
    rsp(j("rsp_shape_mismatch.h5"), [0, 2], np.ones((2, 5)), (4, 4))
    rsp(j("rsp_unsorted.h5"), [2, 0], np.ones((2, 4)), (4, 4))
    rsp(j("rsp_duplicate.h5"), [1, 1], np.ones((2, 4)), (4, 4))
    with h5py.File(j("masked_bad_mask.h5"), "w") as f:
        g = f.create_group("m")
        tag(g, "masked_tensor")
        g["data"] = np.ones((2, 3), dtype=np.float32)
        g["mask"] = np.ones((3, 2), dtype=bool)
    with h5py.File(j("negative_shape.h5"), "w") as f:
        g = f.create_group("m")
        tag(g, "csr_matrix")
        g.attrs["shape"] = np.array([-2, 3], dtype=np.int64)
        g["data"] = np.zeros(0, np.float32)
        g["indices"] = np.zeros(0, np.int32)
        g["indptr"] = np.zeros(1, np.int32)

    with h5py.File(j("step.h5"), "w") as f:
        f["param"] = np.arange(12, dtype=np.float32).reshape(4, 3)
        f["g_dense"] = np.ones((4, 3), dtype=np.float32)
        f["g_shape"] = np.ones((3, 3), dtype=np.float32)
        g = np.ones((4, 3), dtype=np.float32)
        g[2, 1] = np.nan
        f["g_nan"] = g
        f["mask"] = np.eye(4, 3, dtype=bool)
        g = f.create_group("g_masked_bad_mask")  # stepped by rows: the mask's whole shape is checked
        tag(g, "masked_tensor")
        g["data"] = np.ones((4, 3), dtype=np.float32)
        g["mask"] = np.ones((5, 3), dtype=bool)
    rsp(j("step_rsp.h5"), [1, 3], np.ones((2, 3)), (4, 3))
    with h5py.File(j("step_rsp.h5"), "a") as f:
        f["param"] = np.arange(12, dtype=np.float32).reshape(4, 3)
    coo(j("step_oob.h5"), [[4]], np.ones((1, 3)), (4, 3))
    with h5py.File(j("step_oob.h5"), "a") as f:
        f["param"] = np.zeros((4, 3), dtype=np.float32)

    with h5py.File(j("eval.h5"), "w") as f:
        f["x"] = np.arange(6, dtype=np.float32).reshape(2, 3)
        f["y"] = np.ones((3, 2), dtype=np.float32)
        f["m"] = np.array([[1, 0, 1], [0, 1, 1]], dtype=bool)
        f["m2"] = np.array([[1, 1, 1], [0, 1, 0]], dtype=bool)
        f["k"] = np.arange(6, dtype=np.int32).reshape(2, 3)

    # Batch files (docs/CLI.md, "BATCH.json"), each wrong in one way; inputs are relative to this folder.
    def batch(name, text):
        with open(j(name), "w") as f:
            f.write(text)

    good = '"version": 1, "inputs": ["good.h5"], "sparsify": {"method": "threshold", "threshold": 1}'
    batch("batch_not_json.json", "{" + good + ",")
    batch("batch_unknown_key.json", "{" + good + ', "output": {"path": "out/{stem}.h5", "compression": 4}}')
    batch("batch_wrong_type.json", '{"version": 1, "inputs": ["good.h5"], "sparsify": {"method": "threshold", '
          '"threshold": "high"}, "output": {"path": "out/{stem}.h5"}}')
    batch("batch_no_match.json", '{"version": 1, "inputs": ["good.h5", "nothing/*.h5"], '
          '"sparsify": {"method": "threshold", "threshold": 1}, "output": {"path": "out/{stem}.h5"}}')
    batch("batch_gzip_level.json", "{" + good + ', "output": {"path": "out/{stem}.h5", "gzip": 12}}')
    batch("batch_overwrites_input.json", "{" + good + ', "output": {"path": "{name}"}}')
    batch("batch_per_dataset_unlisted.json", '{"version": 1, "inputs": ["good.h5"], "datasets": ["/x"], '
          '"sparsify": {"method": "threshold", "threshold": 1, "per_dataset": {"/cube": {"method": "n-m", "n": 1, "m": 2}}}, '
          '"output": {"path": "out/{stem}.h5"}}')
    batch("batch_per_dataset_relative.json", '{"version": 1, "inputs": ["good.h5"], '
          '"sparsify": {"method": "threshold", "threshold": 1, "per_dataset": {"x": {"method": "n-m", "n": 1, "m": 2}}}, '
          '"output": {"path": "out/{stem}.h5"}}')
    batch("batch_other_method_key.json", '{"version": 1, "inputs": ["good.h5"], "sparsify": {"method": "data-norm", '
          '"sparsity_level": 0.5, "threshold": 1}, "output": {"path": "out/{stem}.h5"}}')
    batch("batch_per_dataset_bad_method.json", '{"version": 1, "inputs": ["good.h5"], '
          '"sparsify": {"method": "threshold", "threshold": 1, "per_dataset": {"/x": {"method": "n-m", "n": 3, "m": 2}}}, '
          '"output": {"path": "out/{stem}.h5"}}')


if __name__ == "__main__":
    main(sys.argv[1])
