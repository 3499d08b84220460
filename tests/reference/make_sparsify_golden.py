#!/usr/bin/python3
"""Golden sparsifier masks for tests/core/tst_sparsifier_golden.cpp.

    /usr/bin/python3 tests/reference/make_sparsify_golden.py tests/data/golden/sparsify.h5

data-norm: PyTorch 1.13's own DataNormSparsifier (add_data, step, get_mask) on random float32
data (no ties), over block shapes with edge blocks, 1-d and squeezable 3-d data, L1 and L2,
zeros_per_block variants and levels whose block count rounds half to even.
threshold, n-m, row-norm: torch ops (x.abs() >= t; topk of |x| per group of M; topk of row
norms). CubicSL: the scheduler's own sparsity_compute_fn.

Each case is a group: attr `options` (JSON, CLI option names), `data` (float32),
`expected_mask` (bool)."""
import json
import sys

import h5py
import numpy as np
import torch
from torch.ao.sparsity._experimental.data_sparsifier import DataNormSparsifier
from torch.ao.sparsity.scheduler.cubic_scheduler import CubicSL

torch.manual_seed(0)


def write(f, name, options, data, mask):
    g = f.create_group(name)
    g.attrs["options"] = json.dumps(options)
    g["data"] = data.numpy().astype(np.float32)
    g["expected_mask"] = mask.numpy().astype(bool)


def data_norm(f, name, shape, level, block, zeros=None, norm="L1"):
    x = torch.randn(*shape)
    kw = dict(sparsity_level=level, sparse_block_shape=block, norm=norm)
    if zeros is not None:
        kw["zeros_per_block"] = zeros
    s = DataNormSparsifier(**kw)
    s.add_data("x", x)
    s.step()
    mask = s.get_mask("x").reshape(shape) != 0
    options = dict(method="data-norm", sparsity_level=level, block=f"{block[0]}x{block[1]}", norm=norm)
    if zeros is not None:
        options["zeros_per_block"] = zeros
    write(f, name, options, x, mask)


def main(path):
    with h5py.File(path, "w") as f:
        data_norm(f, "dn_8x12_1x4_half", (8, 12), 0.5, (1, 4))
        data_norm(f, "dn_7x10_2x3_edges_zpb2_l2", (7, 10), 0.4, (2, 3), zeros=2, norm="L2")
        data_norm(f, "dn_1d_13_zpb3", (13,), 0.6, (1, 4), zeros=3)
        data_norm(f, "dn_5x5_2x2_round_half_even", (5, 5), 0.5, (2, 2))     # 9 blocks * 0.5 = 4.5 -> 4
        data_norm(f, "dn_5x5_2x2_round_half_even_up", (5, 5), 1 / 6, (2, 2))  # 1.5 -> 2
        data_norm(f, "dn_6x8_3x2_zpb1", (6, 8), 0.7, (3, 2), zeros=1)
        data_norm(f, "dn_level0", (4, 8), 0.0, (1, 4))
        data_norm(f, "dn_level1", (4, 8), 1.0, (1, 4))
        data_norm(f, "dn_zpb0", (4, 8), 0.5, (1, 4), zeros=0)
        data_norm(f, "dn_squeeze_1x6x1x9", (1, 6, 1, 9), 0.5, (2, 3), norm="L2")
        data_norm(f, "dn_edge_zpb_exceeds_real", (5, 7), 0.5, (2, 4), zeros=6)

        x = torch.randn(9, 7)
        write(f, "threshold_0p8", dict(method="threshold", threshold=0.8), x, x.abs() >= 0.8)
        x = torch.randn(3, 2, 8)
        for n, m in [(2, 4), (1, 4), (3, 8)]:
            groups = x.abs().reshape(-1, m)
            top = groups.topk(n, dim=1).indices
            mask = torch.zeros_like(groups, dtype=torch.bool).scatter_(1, top, True).reshape(x.shape)
            write(f, f"nm_{n}_{m}", dict(method="n-m", n=n, m=m), x, mask)
        x = torch.randn(11, 5)
        for keep in [0.5, 0.3, 1.0, 0.0]:
            k = round(keep * 11)
            rows = x.norm(dim=1).topk(k).indices
            mask = torch.zeros(11, dtype=torch.bool)
            mask[rows] = True
            write(f, f"rownorm_{keep}", dict(method="row-norm", keep=keep), x, mask[:, None].expand(11, 5))

        # CubicSL: s_t for t in 0..30 with t_0=5, dt=2, n=10, s_0=0.1, s_f=0.9; and initially_zero.
        ts = np.arange(31)
        for zero in (False, True):
            values = [CubicSL.sparsity_compute_fn(0.1, 0.9, int(t), 5, 2, 10, initially_zero=zero) for t in ts]
            g = f.create_group(f"schedule_cubic{'_initially_zero' if zero else ''}")
            g.attrs["options"] = json.dumps(dict(s0=0.1, sf=0.9, t0=5, dt=2, n=10, initially_zero=zero))
            g["steps"] = ts.astype(np.int64)
            g["levels"] = np.asarray(values, dtype=np.float64)


if __name__ == "__main__":
    main(sys.argv[1])
