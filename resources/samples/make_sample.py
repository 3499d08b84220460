#!/usr/bin/python3
"""Builds resources/samples/sample.h5 from scikit-learn's digits data set.

The digits (1797 handwritten 8x8 images, UCI ML hand-written digits) ship inside Debian's
python3-sklearn, so the sample is reproducible offline:

    /usr/bin/python3 resources/samples/make_sample.py resources/samples/sample.h5

Contents (encodings as in docs/HDF5_ENCODINGS.md; written with h5py so reading them also exercises files made
by another tool):
  /emb        float32 [1797, 64]  standardised pixel intensities: an embedding-like table
  /W          float32 [64, 10]    ridge-regression weights mapping /emb rows to digit classes
  /labels     int64   [1797]      digit class of each row
  /pixels     csr_matrix [1797, 64] raw 0..16 intensities, zeros dropped (anndata layout)
  /g0         coo_tensor [1797, 64] hybrid (1 sparse dim): softmax-regression gradient of a
              batch of 48 lookups with repeated ids, uncoalesced like nn.Embedding(sparse=True)
  /g1         row_sparse [1797, 64] the coalesced gradient of a second batch
  /ink        masked_tensor [64, 64] the first 64 rows of /emb, specified where the pen left ink
  /inst       coo_tensor float64 [2, 2] x = [[--, 1], [2, 3]]: gradcheck's instructive case
              (docs/SEMANTICS.md), small enough to check in an instant
"""
import sys

import h5py
import numpy as np
from sklearn.datasets import load_digits


def tag(obj, encoding, version="0.1.0"):
    obj.attrs["encoding-type"] = encoding
    obj.attrs["encoding-version"] = version


def softmax_grad(emb, W, labels, ids):
    logits = emb[ids] @ W
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(ids)), labels[ids]] -= 1.0
    return ((p @ W.T) / len(ids)).astype(np.float32)   # d(mean CE)/d(emb rows), one per lookup


def main(path):
    digits = load_digits()
    raw = digits.data.astype(np.float32)
    labels = digits.target.astype(np.int64)
    # Unit-variance columns; near-constant border pixels are only centred, not blown up.
    emb = ((raw - raw.mean(axis=0)) / np.maximum(raw.std(axis=0), 1.0)).astype(np.float32)
    onehot = np.eye(10, dtype=np.float64)[labels]
    W = np.linalg.solve(emb.T.astype(np.float64) @ emb + 10.0 * np.eye(64), emb.T.astype(np.float64) @ onehot)
    W = W.astype(np.float32)

    rng = np.random.default_rng(20261122)
    batch0 = rng.choice(np.arange(200), size=48, replace=True)       # repeats on purpose
    batch1 = rng.choice(np.arange(1797), size=96, replace=True)
    g0_values = softmax_grad(emb, W, labels, batch0)
    g1_rows = np.unique(batch1)
    g1_full = np.zeros_like(emb)
    np.add.at(g1_full, batch1, softmax_grad(emb, W, labels, batch1))
    g1_data = g1_full[g1_rows]

    with h5py.File(path, "w", track_order=True) as f:
        tag(f.create_dataset("emb", data=emb), "array", "0.2.0")
        tag(f.create_dataset("W", data=W), "array", "0.2.0")
        tag(f.create_dataset("labels", data=labels), "array", "0.2.0")

        indptr = np.zeros(raw.shape[0] + 1, dtype=np.int32)
        rows, cols = np.nonzero(raw)
        np.add.at(indptr, rows + 1, 1)
        g = f.create_group("pixels")
        tag(g, "csr_matrix")
        g.attrs["shape"] = np.array(raw.shape, dtype=np.int64)
        g.create_dataset("data", data=raw[rows, cols])
        g.create_dataset("indices", data=cols.astype(np.int32))
        g.create_dataset("indptr", data=np.cumsum(indptr).astype(np.int32))

        g = f.create_group("g0")
        tag(g, "coo_tensor")
        g.attrs["shape"] = np.array(emb.shape, dtype=np.int64)
        g.create_dataset("indices", data=batch0.astype(np.int64)[None, :])
        g.create_dataset("values", data=g0_values)

        g = f.create_group("g1")
        tag(g, "row_sparse")
        g.attrs["shape"] = np.array(emb.shape, dtype=np.int64)
        g.create_dataset("indices", data=g1_rows.astype(np.int64))
        g.create_dataset("data", data=g1_data)

        g = f.create_group("ink")
        tag(g, "masked_tensor")
        tag(g.create_dataset("data", data=emb[:64]), "array", "0.2.0")
        tag(g.create_dataset("mask", data=raw[:64] > 0), "array", "0.2.0")

        g = f.create_group("inst")
        tag(g, "coo_tensor")
        g.attrs["shape"] = np.array([2, 2], dtype=np.int64)
        g.create_dataset("indices", data=np.array([[0, 1, 1], [1, 0, 1]], dtype=np.int64))
        g.create_dataset("values", data=np.array([1.0, 2.0, 3.0]))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "sample.h5")
