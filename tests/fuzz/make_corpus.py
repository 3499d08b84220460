#!/usr/bin/python3
"""Writes the seed corpus of the fuzz targets (tests/fuzz/corpus/, committed).

corpus/h5/: one small HDF5 file per encoding the reader decodes (docs/HDF5_ENCODINGS.md):
plain datasets of several dtypes and ranks, anndata csr/csc, coo_tensor (full and hybrid),
row_sparse, masked_tensor (dense and sparse masks), 10x Genomics, h5sparse, and our writer's
own style (creation order tracked, chunked, shuffle + gzip). Each stays a few KiB so that
libFuzzer's mutations land in metadata as often as in values.

corpus/h5_structured/: byte strings for fuzz_h5_structured, whose input drives a generator of
well-formed files: random (fixed seeds), long enough for a few elements each, so libFuzzer
starts at a useful length instead of growing from one byte.

corpus/batch/: the example BATCH.json files (resources/examples/) plus recipes that reach
the keys the examples do not (a step with every hyperparameter, per-dataset sparsifiers).

Run with the Python that has h5py (/usr/bin/python3); it rewrites both folders.
"""
import json
import pathlib
import random
import shutil

import h5py
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
H5_DIR = HERE / "corpus" / "h5"
BATCH_DIR = HERE / "corpus" / "batch"
STRUCTURED_DIR = HERE / "corpus" / "h5_structured"


def tag(obj, encoding, version="0.1.0"):
    # Fixed-length strings: the fuzz target skips variable-length attributes, which libhdf5
    # 1.10 cannot read safely once corrupted (see fuzz_h5_decoders.cpp).
    obj.attrs["encoding-type"] = np.bytes_(encoding)
    obj.attrs["encoding-version"] = np.bytes_(version)


def h5file(name, track_order=False):
    # libver="earliest" (h5py's default) keeps the object headers of version 1: the format
    # most files in the wild have. The "ours" file below uses the newer headers.
    return h5py.File(H5_DIR / name, "w", track_order=track_order)


def write_compressed(group, kind, shape, data, indices, indptr):
    tag(group, kind)
    group.attrs["shape"] = np.asarray(shape, dtype=np.int64)
    group["data"] = data
    group["indices"] = indices
    group["indptr"] = indptr


def write_dense_files():
    with h5file("dense.h5") as f:
        tag(f.create_dataset("x", data=np.arange(12, dtype=np.float32).reshape(3, 4) - 5), "array", "0.2.0")
        f["i64"] = np.array([[0, 3], [-2, 0]], dtype=np.int64)
        f["u8"] = np.array([0, 1, 1, 0], dtype=np.uint8)
        f["f16"] = np.array([0.5, 0, -1], dtype=np.float16)
        f["b"] = np.array([[True, False], [False, True]])
        f["scalar"] = np.float64(2.5)
        f["empty"] = np.zeros((0, 3), dtype=np.float32)
        f.create_group("nested/deeper")["t"] = np.arange(8, dtype=np.float64).reshape(2, 2, 2)


def write_compressed_files():
    with h5file("csr.h5") as f:
        write_compressed(f.create_group("m"), "csr_matrix", [3, 4], np.array([1.0, 2.0, 3.0], dtype=np.float32),
                         np.array([0, 2, 1], dtype=np.int32), np.array([0, 2, 2, 3], dtype=np.int32))
        # Unsorted and duplicated column indices within a row: accepted, sorted and summed (CSR I7).
        write_compressed(f.create_group("unsorted"), "csr_matrix", [2, 3], np.array([1.0, 2.0, 4.0]),
                         np.array([2, 0, 2], dtype=np.int64), np.array([0, 3, 3], dtype=np.int64))
    with h5file("csc.h5") as f:
        write_compressed(f.create_group("m"), "csc_matrix", [4, 3], np.array([5, -1, 7], dtype=np.int64),
                         np.array([3, 0, 1], dtype=np.int64), np.array([0, 1, 1, 3], dtype=np.int64))


def write_coo_files():
    with h5file("coo.h5") as f:
        full = f.create_group("full")
        tag(full, "coo_tensor")
        full.attrs["shape"] = np.array([3, 4, 2], dtype=np.int64)
        full["indices"] = np.array([[0, 1, 2], [3, 0, 1], [1, 1, 0]], dtype=np.int64)
        full["values"] = np.array([1.5, -2.0, 4.0], dtype=np.float32)
        hybrid = f.create_group("hybrid")
        tag(hybrid, "coo_tensor")
        hybrid.attrs["shape"] = np.array([4, 3], dtype=np.int64)
        hybrid["indices"] = np.array([[1, 3]], dtype=np.int64)
        hybrid["values"] = np.array([[1, 0, 2], [0, 0, 3]], dtype=np.float64)


def write_row_sparse_file():
    with h5file("row_sparse.h5") as f:
        g = f.create_group("emb")
        tag(g, "row_sparse")
        g.attrs["shape"] = np.array([5, 2], dtype=np.int64)
        g["indices"] = np.array([0, 3], dtype=np.int64)
        g["data"] = np.array([[1, 2], [0, -3]], dtype=np.float32)


def write_masked_files():
    with h5file("masked_dense.h5") as f:
        g = f.create_group("w")
        tag(g, "masked_tensor")
        tag(g.create_dataset("data", data=np.array([[1, 0], [3, 4]], dtype=np.float32)), "array", "0.2.0")
        g["mask"] = np.array([[True, True], [False, True]])
    with h5file("masked_csr.h5") as f:
        g = f.create_group("w")
        tag(g, "masked_tensor")
        indices, indptr = np.array([1, 0, 2], dtype=np.int32), np.array([0, 1, 3], dtype=np.int32)
        write_compressed(g.create_group("data"), "csr_matrix", [2, 3], np.array([2.0, -1.0, 5.0]), indices, indptr)
        write_compressed(g.create_group("mask"), "csr_matrix", [2, 3], np.array([True, False, True]), indices, indptr)
    with h5file("masked_row_sparse.h5") as f:  # read by rows too (RowSparseRowReader)
        g = f.create_group("w")
        tag(g, "masked_tensor")
        for part, values in (("data", np.array([[1, 2], [0, -3]], dtype=np.float32)),
                             ("mask", np.array([[True, False], [True, True]]))):
            r = g.create_group(part)
            tag(r, "row_sparse")
            r.attrs["shape"] = np.array([5, 2], dtype=np.int64)
            r["indices"] = np.array([0, 3], dtype=np.int64)
            r["data"] = values


def write_foreign_files():
    with h5file("tenx.h5") as f:
        m = f.create_group("matrix")
        m["data"] = np.array([4, 1, 2], dtype=np.int32)
        m["indices"] = np.array([0, 2, 1], dtype=np.int64)
        m["indptr"] = np.array([0, 2, 3], dtype=np.int64)
        m["shape"] = np.array([3, 2], dtype=np.int32)
        m["barcodes"] = np.array([b"AAAC-1", b"AAAG-1"])
    with h5file("h5sparse.h5") as f:
        g = f.create_group("s")
        g.attrs["h5sparse_format"] = np.bytes_("csr")
        g.attrs["h5sparse_shape"] = np.array([2, 3], dtype=np.int64)
        g["data"] = np.array([1.0, 2.0], dtype=np.float32)
        g["indices"] = np.array([0, 2], dtype=np.int64)
        g["indptr"] = np.array([0, 1, 2], dtype=np.int64)


def write_ours_file():
    # As core/io/h5_writer writes: link creation order tracked, chunked datasets, shuffle +
    # gzip (`--gzip`), the newest object header format.
    with h5py.File(H5_DIR / "ours_gzip.h5", "w", track_order=True, libver="latest") as f:
        tag(f.create_dataset("w", data=np.arange(16, dtype=np.float32).reshape(4, 4), chunks=(2, 4), shuffle=True,
                             compression="gzip", compression_opts=4), "array", "0.2.0")
        g = f.create_group("g", track_order=True)
        write_compressed(g, "csr_matrix", [2, 2], np.array([1.0], dtype=np.float32), np.array([1], dtype=np.int32),
                         np.array([0, 0, 1], dtype=np.int32))


def write_structured_seeds():
    for seed in range(8):
        (STRUCTURED_DIR / f"seed_{seed}.bin").write_bytes(random.Random(seed).randbytes(384))


def write_batch_files():
    for example in sorted((REPO / "resources" / "examples").glob("*.json")):
        shutil.copyfile(example, BATCH_DIR / example.name)
    step_everything = {
        "version": 1,
        "inputs": ["in/*.h5", "/abs/x.h5"],
        "device": "cpu",
        "step": {"optimizer": "sgd", "semantics": "dense", "rule": "torch", "param": "/p", "grads": ["/g"],
                 "mask": "/m", "lr": 0.01, "momentum": 0.9, "dampening": 0.1, "nesterov": False,
                 "weight_decay": 0.0, "clip_gradient": 1.0, "rescale_grad": 1.0},
        "output": {"layout": "masked", "path": "{name}.out.h5", "gzip": 4},
    }
    adam = {
        "version": 1,
        "inputs": ["a.h5"],
        "step": {"optimizer": "adam", "semantics": "masked", "rule": "mxnet", "param": "/p", "grads": ["/g0", "/g1"],
                 "lr": 0.001, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8},
        "sparsify": {"method": "n-m", "n": 2, "m": 4, "memory_limit": "512M"},
        "output": {"layout": "row_sparse", "path": "out/{stem}.h5"},
    }
    adagrad = {
        "version": 1,
        "inputs": ["b.h5"],
        "datasets": ["/a", "/b"],
        "sparsify": {"method": "data-norm", "sparsity_level": 0.25, "block": "2x2", "zeros_per_block": 2, "norm": "L2",
                     "per_dataset": {"/a": {"method": "threshold", "threshold": 0.5}}},
        "step": {"optimizer": "adagrad", "semantics": "lazy", "param": "/a", "grads": ["/g"], "lr_decay": 0.0,
                 "initial_accumulator_value": 0.1},
        "output": {"layout": "csc", "path": "o/{stem}.{name}"},
    }
    for name, recipe in [("step_sgd.json", step_everything), ("adam_nm.json", adam), ("adagrad.json", adagrad)]:
        (BATCH_DIR / name).write_text(json.dumps(recipe, indent=1) + "\n")


def main():
    for folder in (H5_DIR, BATCH_DIR, STRUCTURED_DIR):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    write_dense_files()
    write_compressed_files()
    write_coo_files()
    write_row_sparse_file()
    write_masked_files()
    write_foreign_files()
    write_ours_file()
    write_structured_seeds()
    write_batch_files()
    total = sum(p.stat().st_size for p in (HERE / "corpus").rglob("*") if p.is_file())
    print(f"wrote {sum(1 for _ in (HERE / 'corpus').rglob('*.*'))} seed files, {total} bytes")


if __name__ == "__main__":
    main()
