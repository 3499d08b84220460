"""A coo_tensor of random entries, as the CLI tests write one: `entries` entries of a 2-d
`shape`, at random rows and columns (so its rows go back, as scipy's coo_matrix builds them,
duplicates included), float32 standard-normal values."""

import numpy as np


def write_shuffled_coo(f, name, shape, entries, rng):
    """Into the h5py group or file `f`, as `name`; returns the group."""
    g = f.create_group(name)
    g.attrs["encoding-type"], g.attrs["encoding-version"] = "coo_tensor", "0.1.0"
    g.attrs["shape"] = np.array(shape, dtype=np.int64)
    g["indices"] = np.stack([rng.integers(0, shape[0], entries), rng.integers(0, shape[1], entries)]).astype(np.int64)
    g["values"] = rng.standard_normal(entries).astype(np.float32)
    return g
