#!/usr/bin/python3
"""Golden masked-tensor results for tests/core/tst_masked_golden.cpp.

    /usr/bin/python3 tests/reference/make_masked_golden.py tests/data/golden/masked.h5

Every case is evaluated by PyTorch 1.13's torch.masked.MaskedTensor (masked_tensor(data,
mask) with strided, or sparse COO, data and mask), written as the expression our evaluator
takes plus the torch code that computed it. Where torch.masked has no op (the explicit
intersect policy) the case says so and numpy computes the definition from docs/SEMANTICS.md.

Each case is a group: attrs `expr`, `layout` (the inputs' storage: dense or coo), `torch`
(the torch code); `inputs/<name>/data` and, for masked inputs, `inputs/<name>/mask`;
`expected/data`, `expected/mask` (absent for a plain result), optional attr `text` (how
torch prints it, compactly).
"""
import sys
import warnings

import h5py
import numpy as np
import torch
from torch.masked import masked_tensor

warnings.filterwarnings("ignore")  # MaskedTensor is a prototype and says so on every call
torch.manual_seed(0)
rng = np.random.default_rng(0)


def random_masked(shape, density=0.6, positive=False, dtype=np.float32, empty_row=False):
    data = rng.standard_normal(shape).astype(dtype)
    if positive:
        data = np.abs(data) + np.asarray(0.1, dtype)
    mask = rng.random(shape) < density
    if empty_row:
        mask[1] = False
    return data, mask


def as_masked(data, mask, layout):
    mt = masked_tensor(torch.from_numpy(data), torch.from_numpy(mask))
    return mt.to_sparse_coo() if layout == "coo" else mt


def masked_norm(x, dim=None):
    """MaskedTensor.norm() does not dispatch in 1.13 (it passes p=); its own reduction does."""
    data, mask = x.get_data(), x.get_mask()
    if dim is None:
        return masked_tensor(torch.masked.norm(data, 2.0, mask=mask), mask.any())
    return masked_tensor(torch.masked.norm(data, 2.0, dim=dim, mask=mask), mask.any(dim))


def masked_log_softmax(x, dim):
    """MaskedTensor has no log_softmax dispatch in 1.13; torch.masked's functional form does."""
    return masked_tensor(torch.masked.log_softmax(x.get_data(), dim, mask=x.get_mask()), x.get_mask())


def write(f, name, expr, code, inputs, result, layout="dense", text=None):
    g = f.create_group(name)
    g.attrs["expr"] = expr
    g.attrs["layout"] = layout
    g.attrs["torch"] = code
    for input_name, (data, mask) in inputs.items():
        ig = g.create_group(f"inputs/{input_name}")
        ig["data"] = data
        if mask is not None:
            ig["mask"] = mask
    if isinstance(result, tuple):
        data, mask = result
    elif torch.masked.is_masked_tensor(result):
        if result.get_data().is_sparse:
            result = result.to_dense()
        data = result.get_data().numpy()
        mask = result.get_mask().numpy()
    else:
        data, mask = result.numpy(), None
    g["expected/data"] = np.asarray(data)
    if mask is not None:
        g["expected/mask"] = np.asarray(mask, dtype=bool)
    if text is not None:
        g.attrs["text"] = text


def case(f, name, expr, fn, specs, layout="dense", text=None):
    """specs: {name: (data, mask or None)}; fn gets torch values (masked where a mask is given)."""
    args = {}
    for n, (data, mask) in specs.items():
        args[n] = as_masked(data, mask, layout) if mask is not None else torch.from_numpy(data)
    write(f, name, expr, fn.__doc__ or expr, specs, fn(**args), layout, text)


def main(path):
    with h5py.File(path, "w") as f:
        x = random_masked((5, 7), empty_row=True)
        y = (rng.standard_normal((5, 7)).astype(np.float32), x[1])
        p = (np.abs(x[0]) + np.float32(0.1), x[1])
        plain = (rng.standard_normal((5, 7)).astype(np.float32), None)

        for layout in ("dense", "coo"):
            sfx = "" if layout == "dense" else "_coo"
            case(f, "neg" + sfx, "-x", lambda x: -x, {"x": x}, layout)
            case(f, "abs" + sfx, "abs(x)", lambda x: x.abs(), {"x": x}, layout)
            case(f, "sqrt" + sfx, "sqrt(x)", lambda x: x.sqrt(), {"x": p}, layout)
            case(f, "exp" + sfx, "exp(x)", lambda x: x.exp(), {"x": x}, layout)
            case(f, "log" + sfx, "log(x)", lambda x: x.log(), {"x": p}, layout)
            case(f, "mul_scalar" + sfx, "x * 2.5", lambda x: x * 2.5, {"x": x}, layout)
            case(f, "add_same_mask" + sfx, "x + y", lambda x, y: x + y, {"x": x, "y": y}, layout)
            case(f, "div_same_mask" + sfx, "x / y", lambda x, y: x / y, {"x": p, "y": y}, layout)

        case(f, "rsqrt", "rsqrt(x)", lambda x: x.rsqrt(), {"x": p})
        case(f, "square", "square(x)", lambda x: x.square(), {"x": x})
        case(f, "sign", "sign(x)", lambda x: x.sign(), {"x": x})
        case(f, "pow2", "pow(x, 2)", lambda x: x.pow(2), {"x": x})
        case(f, "pow_half", "pow(x, 0.5)", lambda x: x.pow(0.5), {"x": p})
        case(f, "clamp", "clamp(x, -0.5, 0.5)", lambda x: torch.clamp(x, -0.5, 0.5), {"x": x})
        case(f, "sub_same_mask", "x - y", lambda x, y: x - y, {"x": x, "y": y})
        case(f, "mul_same_mask", "x * y", lambda x, y: x * y, {"x": x, "y": y})
        case(f, "maximum", "maximum(x, y)", lambda x, y: torch.maximum(x, y), {"x": x, "y": y})
        case(f, "minimum", "minimum(x, y)", lambda x, y: torch.minimum(x, y), {"x": x, "y": y})
        case(f, "masked_plus_plain", "x + z", lambda x, z: x + masked_tensor(z, x.get_mask()),
             {"x": x, "z": plain})
        case(f, "scalar_minus_masked", "1.5 - x", lambda x: -x + 1.5, {"x": x})
        case(f, "where", "where(c, x, y)",
             lambda c, x, y: torch.where(c.bool(), x, y),
             {"c": ((rng.random((5, 7)) < 0.5).astype(np.float32), None), "x": x,
              "y": random_masked((5, 7))})

        for op in ("sum", "mean", "amax", "amin", "norm"):
            fn = getattr(torch, op) if op != "norm" else masked_norm
            case(f, f"{op}_all", f"{op}(x)", lambda x, fn=fn: fn(x), {"x": x})
            for dim in (0, 1, -1):
                case(f, f"{op}_dim{dim}", f"{op}(x, {dim})", lambda x, fn=fn, dim=dim: fn(x, dim), {"x": x})
        x3 = random_masked((3, 4, 5), density=0.4)
        case(f, "sum_3d_dim1", "sum(x, 1)", lambda x: torch.sum(x, 1), {"x": x3})
        case(f, "amax_3d_dim0", "amax(x, 0)", lambda x: torch.amax(x, 0), {"x": x3})
        case(f, "sum_all_coo", "sum(x)", lambda x: torch.sum(x), {"x": x}, "coo")   # torch: no dim for COO
        case(f, "amax_all_coo", "amax(x)", lambda x: torch.amax(x), {"x": x}, "coo")
        empty = (x[0], np.zeros_like(x[1]))
        case(f, "sum_nothing_specified", "sum(x)", lambda x: torch.sum(x), {"x": empty})

        for fn_name in ("softmax", "log_softmax"):
            fn = torch.softmax if fn_name == "softmax" else masked_log_softmax
            for dim in (0, 1):
                case(f, f"{fn_name}_dim{dim}", f"{fn_name}(x, {dim})", lambda x, fn=fn, dim=dim: fn(x, dim), {"x": x})

        case(f, "fused_bench_expression", "sum(sqrt(abs(x)) * x + 1.5, 1)",
             lambda x: torch.sum(x.abs().sqrt() * x + 1.5, 1), {"x": random_masked((64, 33))})
        xd = random_masked((6, 5), dtype=np.float64)
        case(f, "float64_softmax_sum", "sum(softmax(x, 1) * x, 0)",
             lambda x: torch.sum(torch.softmax(x, 1) * x, 0), {"x": xd})

        # The seed computation of docs/SEMANTICS.md, "Masked tensors".
        param = np.arange(8, dtype=np.float32).reshape(2, 4)
        grad = np.zeros((2, 4), np.float32)
        grad[0, 2], grad[1, 0], grad[1, 2] = 3, 4, 5
        gmask = grad != 0
        state_sum = np.full((2, 4), 0.5, np.float32)
        masked_grad = masked_tensor(torch.from_numpy(grad), torch.from_numpy(gmask))
        state_sum2 = torch.from_numpy(state_sum) + masked_grad.get_data().pow(2)
        std2 = masked_tensor(state_sum2, torch.from_numpy(gmask)).sqrt() + 1e-10
        param2 = torch.from_numpy(param) + (-0.1) * (masked_grad / std2).get_data()
        seed = {"p": (param, None), "s": (state_sum, None), "g": (grad, gmask)}
        write(f, "seed_std2", "sqrt(masked(s + data(g) * data(g), g)) + 1e-10",
              "masked_tensor(state_sum + masked_grad.get_data().pow(2), mask).sqrt() + 1e-10",
              seed, std2, text="[[--, --, 3.0822, --], [4.0620, --, 5.0498, --]]")
        write(f, "seed_param2", "p + -0.1 * data(g / (sqrt(masked(s + data(g) * data(g), g)) + 1e-10))",
              "param + (-lr) * (masked_grad / std2).get_data()", seed, param2,
              text="[[0.0000, 1.0000, 1.9027, 3.0000], [3.9015, 5.0000, 5.9010, 7.0000]]")

        # No torch op: the explicit intersect policy of docs/SEMANTICS.md, (v1 + v2, m1 AND m2).
        a, b = random_masked((4, 6)), random_masked((4, 6))
        write(f, "intersect_add", "intersect(a, b) + intersect(b, a)", "numpy: (a + b, ma & mb)",
              {"a": a, "b": b}, (a[0] + b[0], a[1] & b[1]))


if __name__ == "__main__":
    main(sys.argv[1])
