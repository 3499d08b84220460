#!/usr/bin/python3
"""Golden Jacobians for tests/core/tst_jacobian_golden.cpp.

    /usr/bin/python3 tests/reference/make_jacobian_golden.py tests/data/golden/jacobian.h5

torch.autograd.functional.jacobian (PyTorch 1.13, float64) of dense expressions, and
torch.autograd.grad row by row for sparse ones, stored in gradcheck's layout: rows = input
elements (row-major), columns = output elements.

Each case is a group: attr `expr`; `inputs/<name>` (float64, or bool for masks; a sparse input
as a `coo_tensor` group); `jacobian/<name>` (rows x cols) for every input that takes a gradient.
Attr `masked` = 1 marks a case to check with masked gradcheck: PyTorch's gradient of a sparse
leaf has no rows for unspecified elements, which is masked gradcheck's numerical Jacobian.

`instructive_mm_sparse_mm` is the case that fails in both modes: instead of `jacobian/x` it has
`analytical/x` (both modes), `numerical/x` (non-masked) and `numerical_masked/x`.
"""
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


# sparse_mm of two sparse operands with different patterns: PyTorch projects the gradient of
# each operand onto that operand's own pattern, the second too (docs/SEMANTICS.md, "gradcheck").
SPARSE_CASES = [
    ("sparse_mm_both_sparse", "to_dense(sparse_mm(x, y))", lambda x, y: torch.sparse.mm(x, y).to_dense(),
     {"x": np.array([[0.0, 1.5, -2.0], [3.0, 0.0, 0.5]]), "y": np.array([[1.0, 0.0], [0.0, -2.0], [0.75, 0.0]])}),
    ("sparse_mm_sparse_dense", "sparse_mm(x, w)", lambda x, w: torch.sparse.mm(x, w),
     {"x": np.array([[0.0, 1.5, -2.0], [3.0, 0.0, 0.5]]), "w": randn(3, 2)}),
]
SPARSE_INPUTS = {"x", "y"}


def write_coo(group, value):
    group.attrs["encoding-type"] = "coo_tensor"
    group.attrs["encoding-version"] = "0.1.0"
    group.attrs["shape"] = np.array(value.shape, dtype=np.int64)
    nz = np.nonzero(value)
    group["indices"] = np.stack(nz).astype(np.int64)
    group["values"] = value[nz]


def row_by_row_jacobian(fn, inputs):
    """rows = input elements, columns = output elements; sparse leaves give their projected gradient."""
    def leaves():
        return [torch.from_numpy(v).to_sparse().requires_grad_(True) if n in SPARSE_INPUTS
                else torch.from_numpy(v).requires_grad_(True) for n, v in inputs.items()]
    out = fn(*leaves())
    columns = {name: [] for name in inputs}
    for o in range(out.numel()):
        xs = leaves()
        seed = torch.zeros(out.numel(), dtype=torch.float64)
        seed[o] = 1.0
        grads = torch.autograd.grad(fn(*xs), xs, seed.reshape(out.shape))
        for name, g in zip(inputs, grads):
            columns[name].append((g.to_dense() if g.is_sparse else g).reshape(-1))
    return {name: torch.stack(cols, 1).numpy() for name, cols in columns.items()}


# The instructive case: x = [[--, 1], [2, 3]] as COO, f(x) = mm(sparse_mm(x, x), x); gradcheck
# fails in both modes, and these are its exact Jacobians as PyTorch 2.x computes them (the
# numbers of docs/SEMANTICS.md, "gradcheck"). PyTorch 1.13 cannot differentiate mm with a sparse
# operand ("requires the 'mat2' tensor to be strided"), so they are written here, and
# instructive_case_check() below re-derives them with 1.13 from dense ops: a gradient hook
# projects each sparse_mm operand's gradient onto x's pattern.
INSTRUCTIVE_X = np.array([[0.0, 1.0], [2.0, 3.0]])
INSTRUCTIVE_ANALYTICAL = np.array([[2, 0, 6, 0], [6, 13, 4, 12], [3, 1, 13, 6], [2, 6, 12, 31]], dtype=np.float64)
INSTRUCTIVE_NUMERICAL = np.array([[4, 3, 6, 2], [6, 13, 4, 12], [3, 1, 13, 6], [2, 6, 12, 31]], dtype=np.float64)
INSTRUCTIVE_NUMERICAL_MASKED = np.vstack([np.zeros((1, 4)), INSTRUCTIVE_NUMERICAL[1:]])  # x[0, 0] not perturbed


def instructive_case_check():
    x0 = torch.from_numpy(INSTRUCTIVE_X)
    pattern = torch.tensor([[0.0, 1.0], [1.0, 1.0]], dtype=torch.float64)
    columns = []
    for o in range(4):
        x = x0.clone().requires_grad_(True)
        a, b = x * 1, x * 1
        a.register_hook(lambda g: g * pattern)  # sparse_mm's first operand: projected
        b.register_hook(lambda g: g * pattern)  # and its second
        seed = torch.zeros(4, dtype=torch.float64)
        seed[o] = 1.0
        columns.append(torch.autograd.grad(torch.mm(torch.mm(a, b), x), x, seed.reshape(2, 2))[0].reshape(-1))
    analytical = torch.stack(columns, 1).numpy()
    # Non-masked numerical: x[0, 0] perturbed like a dense element, so the dense x @ x @ x's Jacobian.
    dense = torch.autograd.functional.jacobian(lambda x: torch.mm(torch.mm(x, x), x), x0).reshape(4, 4).T.numpy()
    assert np.array_equal(analytical, INSTRUCTIVE_ANALYTICAL), analytical
    assert np.allclose(dense, INSTRUCTIVE_NUMERICAL), dense


def write_instructive_case(f):
    instructive_case_check()
    g = f.create_group("instructive_mm_sparse_mm")
    g.attrs["expr"] = "mm(sparse_mm(x, x), x)"
    write_coo(g.create_group("inputs/x"), INSTRUCTIVE_X)
    g["analytical/x"] = INSTRUCTIVE_ANALYTICAL
    g["numerical/x"] = INSTRUCTIVE_NUMERICAL
    g["numerical_masked/x"] = INSTRUCTIVE_NUMERICAL_MASKED


def main(path):
    with h5py.File(path, "w") as f:
        write_instructive_case(f)
        for name, expr, fn, inputs in SPARSE_CASES:
            g = f.create_group(name)
            g.attrs["expr"] = expr
            g.attrs["masked"] = 1
            for input_name, value in inputs.items():
                if input_name in SPARSE_INPUTS:
                    write_coo(g.create_group(f"inputs/{input_name}"), value)
                else:
                    g[f"inputs/{input_name}"] = value
            for input_name, j in row_by_row_jacobian(fn, inputs).items():
                g[f"jacobian/{input_name}"] = j
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
