#!/usr/bin/python3
"""Golden Jacobians for tests/core/tst_jacobian_golden.cpp.

    /usr/bin/python3 tests/reference/make_jacobian_golden.py tests/data/golden/jacobian.h5

torch.autograd.functional.jacobian (PyTorch 1.13, float64) of dense expressions, stored in
gradcheck's layout: rows = input elements (row-major), columns = output elements.

Each case is a group: attr `expr`; `inputs/<name>` (float64, or bool for masks);
`jacobian/<name>` (rows x cols) for every input that takes a gradient."""
import sys

import h5py
import numpy as np
import torch

rng = np.random.default_rng(0)


def randn(*shape):
    return rng.standard_normal(shape)


CASES = [
    ("softmax_mm", "softmax(mm(x, w), 1)", lambda x, w: torch.softmax(x @ w, 1), {"x": randn(3, 4), "w": randn(4, 5)}),
    ("bench_expression", "sum(sqrt(abs(x)) * x + 1.5, 1)", lambda x: torch.sum(x.abs().sqrt() * x + 1.5, 1),
     {"x": randn(4, 5)}),
    ("log_softmax_product", "log_softmax(x * y, 0)", lambda x, y: torch.log_softmax(x * y, 0),
     {"x": randn(3, 4), "y": randn(3, 4)}),
    ("amax_exp", "amax(exp(x) - y, 1)", lambda x, y: torch.amax(x.exp() - y, 1), {"x": randn(3, 5), "y": randn(3, 5)}),
    ("norm_dim", "norm(x - y, 1)", lambda x, y: torch.linalg.vector_norm(x - y, dim=1),
     {"x": randn(4, 3), "y": randn(4, 3)}),
    ("mean_pow", "mean(pow(abs(x), 1.5), 0)", lambda x: torch.mean(x.abs().pow(1.5), 0), {"x": randn(3, 4)}),
    ("clamp_mul", "clamp(x, -0.5, 0.5) * y", lambda x, y: torch.clamp(x, -0.5, 0.5) * y,
     {"x": randn(3, 3), "y": randn(3, 3)}),
    ("maximum_div", "maximum(x, y) / (1 + square(y))", lambda x, y: torch.maximum(x, y) / (1 + y.square()),
     {"x": randn(2, 5), "y": randn(2, 5)}),
    ("rsqrt_log", "rsqrt(p) + log(p) * 2 - p / 3", lambda p: p.rsqrt() + p.log() * 2 - p / 3,
     {"p": np.abs(randn(2, 3)) + 0.5}),
    ("chain_mm", "mm(mm(a, b), a)", lambda a, b: a @ b @ a, {"a": randn(3, 3), "b": randn(3, 3)}),
]


def main(path):
    with h5py.File(path, "w") as f:
        for name, expr, fn, inputs in CASES:
            g = f.create_group(name)
            g.attrs["expr"] = expr
            tensors = [torch.from_numpy(v) for v in inputs.values()]
            for input_name, value in inputs.items():
                g[f"inputs/{input_name}"] = value
            jac = torch.autograd.functional.jacobian(fn, tuple(tensors))
            out = fn(*tensors)
            for (input_name, value), j in zip(inputs.items(), jac):
                # torch: out.shape + in.shape -> ours: in elements x out elements
                g[f"jacobian/{input_name}"] = j.reshape(out.numel(), value.size).T.numpy()


if __name__ == "__main__":
    main(sys.argv[1])
