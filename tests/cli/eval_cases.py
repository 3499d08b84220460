#!/usr/bin/python3
"""`sparsity eval` end to end:

    eval_cases.py SPARSITY WORKDIR

* the seed computation (docs/SEMANTICS.md) prints as torch.masked prints it;
* /result comes in the result's own encoding: masked_tensor (dense and COO data), coo_tensor
  for a sparse result, a plain dataset for a dense one, each readable with h5py and equal to
  numpy's computation;
* sparse_mm takes a CSR input; --mask-policy intersect combines different masks;
* the JSON report has shapes, nnz, compute_seconds and io_seconds;
* the result's dtype follows the inputs whose values the expression uses (not an unused one,
  nor one used only as a pattern)."""
import json
import os
import subprocess
import sys

import h5py
import numpy as np


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)


def run(cli, *args):
    r = subprocess.run([cli, *args], capture_output=True, text=True)
    check(r.returncode == 0, f"{args}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def evaluate(cli, out, expression, *inputs, extra=()):
    args = ["eval", "--expr", expression, "-o", out, "--json", *extra]
    for binding in inputs:
        args += ["--input", binding]
    return json.loads(run(cli, *args))


def value_dtype(element):
    """The dtype of an element's values: a dataset's, a coo_tensor's values', a masked_tensor's data's."""
    if isinstance(element, h5py.Dataset):
        return element.dtype
    return element["values"].dtype if "values" in element else value_dtype(element["data"])


def decode(element):
    """Dense values (0 where unspecified or unstored) and the specified mask of /result."""
    if isinstance(element, h5py.Dataset):
        values = element[()]
        return values, np.ones(values.shape, bool)
    encoding = element.attrs["encoding-type"]
    if encoding == "coo_tensor":
        shape = tuple(element.attrs["shape"])
        values = np.zeros(shape, element["values"].dtype)
        specified = np.zeros(shape, bool)
        index = tuple(element["indices"][:])
        values[index] = element["values"][:]
        specified[index] = True
        return values, specified
    check(encoding == "masked_tensor", f"unexpected encoding {encoding}")
    data, _ = decode(element["data"])
    mask, stored = decode(element["mask"])
    return np.where(mask & stored, data, 0), (mask & stored).astype(bool)


def main(cli, work):
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "inputs.h5")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    y = rng.standard_normal((4, 3)).astype(np.float32)
    m = rng.random((5, 4)) < 0.5
    m2 = rng.random((5, 4)) < 0.5
    with h5py.File(path, "w") as f:
        f["x"], f["y"], f["m"], f["m2"] = x, y, m, m2
        f["param"] = np.arange(8, dtype=np.float32).reshape(2, 4)
        grad = np.zeros((2, 4), np.float32)
        grad[0, 2], grad[1, 0], grad[1, 2] = 3, 4, 5
        f["grad"], f["gmask"] = grad, grad != 0
        f["sum"] = np.full((2, 4), 0.5, np.float32)
        f["x64"] = x.astype(np.float64)
        p64 = f.create_group("p64")  # a float64 COO used only as a pattern
        p64.attrs["encoding-type"], p64.attrs["encoding-version"] = "coo_tensor", "0.1.0"
        p64.attrs["shape"] = np.array(m.shape, np.int64)
        p64["indices"] = np.stack(np.nonzero(m)).astype(np.int64)
        p64["values"] = np.ones(int(m.sum()))
    out = lambda name: os.path.join(work, name + ".h5")
    bind = lambda name, dataset=None: f"{name}={path}:/{dataset or name}"

    # The seed, printed as torch.masked prints std2.
    text = run(cli, "eval", "--expr", "sqrt(masked(s + g * g, m)) + 1e-10", "-o", out("std2"), "--print",
               "--input", bind("s", "sum"), "--input", bind("g", "grad"), "--input", bind("m", "gmask"))
    check("[[--, --, 3.0822, --], [4.0620, --, 5.0498, --]]" in text, f"std2 printed as {text!r}")

    # Masked dense result, and the JSON report.
    report = evaluate(cli, out("masked"), "sum(sqrt(abs(masked(x, m))) * x + 1.5, 1)", bind("x"), bind("m"))
    for key in ("inputs", "result", "compute_seconds", "io_seconds", "device_init_seconds"):
        check(key in report, f"--json lacks {key}: {report}")
    check(report["device"] == "cpu" and report["device_init_seconds"] == 0, f"device {report['device']}")
    auto = evaluate(cli, out("auto"), "sum(sqrt(abs(masked(x, m))) * x + 1.5, 1)", bind("x"), bind("m"),
                    extra=("--device", "auto"))
    check(auto["device"] == "cpu", f"--device auto ran on {auto['device']}, not the CPU")
    check(report["result"]["shape"] == [5] and report["result"]["kind"] == "masked", f"result {report['result']}")
    with h5py.File(out("masked"), "r") as f:
        values, specified = decode(f["result"])
    expected = np.where(m, np.sqrt(np.abs(x)) * x + 1.5, 0).sum(1)
    check(np.array_equal(specified, m.any(1)), "sum's mask is not any(mask, 1)")
    check(np.allclose(values[specified], expected[specified], rtol=1e-6), f"{values} != {expected}")
    check(report["result"]["nnz"] == int(m.any(1).sum()), f"nnz {report['result']['nnz']}")

    # The result's dtype follows the inputs the expression uses, not every bound one (torch's
    # promotion): a float64 input bound but unused leaves a float32 computation float32.
    evaluate(cli, out("dtype32"), "x * 2", bind("x"), bind("z", "x64"))
    evaluate(cli, out("dtype64"), "x * z", bind("x"), bind("z", "x64"))
    with h5py.File(out("dtype32"), "r") as f32, h5py.File(out("dtype64"), "r") as f64:
        check(f32["result"].dtype == np.float32, f"unused float64 input made the result {f32['result'].dtype}")
        check(f64["result"].dtype == np.float64, f"float32 * float64 gave {f64['result'].dtype}")
    # Only the pattern of sparse_mask's and masked's second operand is used: x.sparse_mask(p) and
    # masked_tensor(x, mask) keep x's dtype in torch, a float64 pattern included.
    for expr in ("sparse_mask(x, p)", "masked(x, p) * 2", "intersect(masked(x, m), p)"):
        evaluate(cli, out("dtype_pattern"), expr, bind("x"), bind("m"), bind("p", "p64"))
        with h5py.File(out("dtype_pattern"), "r") as f:
            dtype = value_dtype(f["result"])
            check(dtype == np.float32, f"{expr}: a float64 pattern made the result {dtype}")
        os.remove(out("dtype_pattern"))

    # Masked COO storage in, masked COO out.
    evaluate(cli, out("coo_input"), "to_sparse(masked(x, m))", bind("x"), bind("m"))
    report = evaluate(cli, out("coo_result"), "sqrt(abs(r)) * 2", f"r={out('coo_input')}:/result")
    check(report["result"]["layout"] == "coo", f"masked COO input gave layout {report['result']['layout']}")
    with h5py.File(out("coo_result"), "r") as f:
        check(f["result/data"].attrs["encoding-type"] == "coo_tensor", "masked COO data is not a coo_tensor")
        values, specified = decode(f["result"])
    check(np.array_equal(specified, m), "COO result mask differs")
    check(np.allclose(values[m], (np.sqrt(np.abs(x)) * 2)[m], rtol=1e-6), "COO result values differ")

    # Masked CSR storage (converted from the COO one) in, masked CSR out.
    run(cli, "convert", out("coo_input"), out("csr_input"), "--layout", "csr")
    report = evaluate(cli, out("csr_result"), "r * r - 1", f"r={out('csr_input')}:/result")
    check(report["result"]["layout"] == "csr", f"masked CSR input gave layout {report['result']['layout']}")
    with h5py.File(out("csr_result"), "r") as f:
        check(f["result/data"].attrs["encoding-type"] == "csr_matrix", "masked CSR data is not a csr_matrix")
        mask = f["result/mask"]
        stored = np.zeros((5, 4), bool)
        for row in range(5):
            stored[row, mask["indices"][mask["indptr"][row]:mask["indptr"][row + 1]]] = True
    check(np.array_equal(stored, m), "CSR result stores other elements than the mask")

    # A sparse (unmasked) result is a coo_tensor storing exactly the pattern.
    evaluate(cli, out("sparse_mask"), "sparse_mask(x * 3, m)", bind("x"), bind("m"))
    with h5py.File(out("sparse_mask"), "r") as f:
        check(f["result"].attrs["encoding-type"] == "coo_tensor", "sparse_mask result is not a coo_tensor")
        check(f["result/values"].shape[0] == int(m.sum()), "sparse_mask stores more than the pattern")
        values, specified = decode(f["result"])
    check(np.array_equal(specified, m) and np.allclose(values, np.where(m, x * 3, 0)), "sparse_mask values")

    # sparse_mm with a CSR operand (written by convert): dense result equal to numpy.
    run(cli, "convert", path, out("csr"), "--layout", "csr", "--dataset", "/x")
    evaluate(cli, out("sparse_mm"), "sparse_mm(c, y)", f"c={out('csr')}:/x", bind("y"))
    with h5py.File(out("sparse_mm"), "r") as f:
        check(isinstance(f["result"], h5py.Dataset), "sparse_mm of sparse x dense is not dense")
        check(np.allclose(f["result"][()], x @ y, rtol=1e-5, atol=1e-6), "sparse_mm values")

    # A product large enough to be divided among threads writes the same bytes with one thread
    # and with two (Eigen's own parallel gemm blocked the inner dimension by the thread count).
    big = os.path.join(work, "product.h5")
    rng = np.random.default_rng(4)
    with h5py.File(big, "w") as f:
        f["a"] = rng.standard_normal((300, 700))
        f["b"] = rng.standard_normal((700, 40))
    products = {}
    for threads in ("1", "2"):
        r = subprocess.run([cli, "eval", "--expr", "mm(a, b)", "--input", f"a={big}:/a", "--input", f"b={big}:/b",
                            "-o", out(f"product{threads}")], capture_output=True, text=True,
                           env={**os.environ, "OMP_NUM_THREADS": threads})
        check(r.returncode == 0, f"mm with {threads} threads: {r.stderr}")
        with h5py.File(out(f"product{threads}"), "r") as f:
            products[threads] = f["result"][()]
    check(products["1"].tobytes() == products["2"].tobytes(), "mm: one thread and two differ")
    with h5py.File(big, "r") as f:
        check(np.allclose(products["1"], f["a"][()] @ f["b"][()], rtol=1e-12, atol=1e-10), "mm values")

    # Different masks: the intersect policy gives (v1 + v2, m1 & m2).
    evaluate(cli, out("intersect"), "masked(x, m) + masked(x, n)", bind("x"), bind("m"), bind("n", "m2"),
             extra=("--mask-policy", "intersect"))
    with h5py.File(out("intersect"), "r") as f:
        values, specified = decode(f["result"])
    check(np.array_equal(specified, m & m2), "intersect mask is not m1 & m2")
    check(np.allclose(values[specified], (2 * x)[specified]), "intersect values")
    print("eval cases passed")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
