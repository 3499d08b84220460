#!/usr/bin/python3
"""Golden optimizer cases for tests/core/tst_optimizer_golden.cpp.

    /usr/bin/python3 tests/reference/make_optim_golden.py tests/data/golden/optim.h5

torch rule: PyTorch 1.13 (Debian's python3-torch) runs the real optimizers: Adagrad (dense
and sparse COO gradients), Adam, SparseAdam, SGD (dense, momentum, nesterov, sparse with and
without momentum), and the
seed's masked Adagrad written with torch.masked exactly as in the MaskedTensor tutorial.
Masked Adam/SGD (our definition: the dense formula where the mask is true) are written with
torch ops in torch's order plus torch.where.
mxnet rule: MXNet 1.9.1's C++ kernels transcribed in float32 numpy, operation for operation
(MXNet itself is not packaged in Debian); MXNet's checked SGD-momentum example (docs/SEMANTICS.md) is a
case of its own.

Each case is a group: attrs `options` (JSON with the CLI's option names) and `steps`;
`param`, `grads/<k>` (our encodings, as `sparsity step` reads them), optional `mask`, and
`expected/param`, `expected/state/<name>`, `expected/step`, `expected/last_update`."""
import json
import sys

import h5py
import numpy as np
import torch

torch.manual_seed(0)
rng = np.random.default_rng(1)
f32 = np.float32


def tag(obj, encoding, version="0.1.0"):
    obj.attrs["encoding-type"] = encoding
    obj.attrs["encoding-version"] = version


def write_dense(group, name, array):
    tag(group.create_dataset(name, data=array), "array", "0.2.0")


def write_coo(group, name, indices, values, shape):
    g = group.create_group(name)
    tag(g, "coo_tensor")
    g.attrs["shape"] = np.array(shape, dtype=np.int64)
    g["indices"] = np.asarray(indices, dtype=np.int64)
    g["values"] = np.asarray(values)


def write_rsp(group, name, rows, data, shape):
    g = group.create_group(name)
    tag(g, "row_sparse")
    g.attrs["shape"] = np.array(shape, dtype=np.int64)
    g["indices"] = np.asarray(rows, dtype=np.int64)
    g["data"] = np.asarray(data)


def write_masked(group, name, data, mask):
    g = group.create_group(name)
    tag(g, "masked_tensor")
    write_dense(g, "data", data)
    write_dense(g, "mask", mask)


def write_case(f, name, options, param, grads, expected_param, states, last_update, mask=None):
    g = f.create_group(name)
    g.attrs["options"] = json.dumps(options)
    g.attrs["steps"] = len(grads)
    write_dense(g, "param", param)
    gg = g.create_group("grads")
    for k, (kind, payload) in enumerate(grads):
        {"dense": lambda: write_dense(gg, str(k), payload),
         "coo": lambda: write_coo(gg, str(k), *payload),
         "rsp": lambda: write_rsp(gg, str(k), *payload),
         "masked": lambda: write_masked(gg, str(k), *payload)}[kind]()
    if mask is not None:
        write_dense(g, "mask", mask)
    e = g.create_group("expected")
    write_dense(e, "param", expected_param)
    es = e.create_group("state")
    for key, value in states.items():
        write_dense(es, key, value)
    e["step"] = np.int64(len(grads))
    e["last_update"] = np.asarray(last_update, dtype=np.int64)


def hybrid_grads(shape, steps, nnz, dup=True):
    """Embedding-style sparse gradients: row ids with repeats, dense rows of values."""
    out = []
    for _ in range(steps):
        rows = rng.integers(0, shape[0], size=nnz)
        if dup:
            rows[-1] = rows[0]
        out.append((rows, rng.standard_normal((nnz, shape[1])).astype(f32)))
    return out


def touched_rows(grads_rows, nrows):
    last = np.zeros(nrows, dtype=np.int64)
    for step, rows in enumerate(grads_rows, start=1):
        last[np.unique(rows)] = step
    return last


def run_torch(opt_class, param, grads, **kw):
    p = torch.nn.Parameter(torch.tensor(param))
    opt = opt_class([p], **kw)
    for g in grads:
        p.grad = g
        opt.step()
    return p.detach().numpy().copy(), opt.state[p]


def torch_cases(f):
    shape = (7, 5)
    param = rng.standard_normal(shape).astype(f32)

    # Dense Adagrad with every option.
    grads = [rng.standard_normal(shape).astype(f32) for _ in range(3)]
    p, st = run_torch(torch.optim.Adagrad, param, [torch.tensor(g) for g in grads], lr=0.1, lr_decay=0.05,
                      weight_decay=0.01, initial_accumulator_value=0.2, eps=1e-10)
    write_case(f, "torch_adagrad_dense", dict(optimizer="adagrad", semantics="dense", rule="torch", lr=0.1, lr_decay=0.05,
               weight_decay=0.01, initial_accumulator_value=0.2, eps=1e-10), param, [("dense", g) for g in grads],
               p, {"sum": st["sum"].numpy()}, np.full(shape[0], 3))

    # Sparse Adagrad: hybrid COO (nn.Embedding(sparse=True)) with duplicate rows.
    hg = hybrid_grads(shape, 3, 4)
    tg = [torch.sparse_coo_tensor(torch.tensor(r[None, :]), torch.tensor(v), shape) for r, v in hg]
    p, st = run_torch(torch.optim.Adagrad, param, tg, lr=0.1, lr_decay=0.1, initial_accumulator_value=0.1)
    write_case(f, "torch_adagrad_lazy_rows", dict(optimizer="adagrad", semantics="lazy", rule="torch", lr=0.1, lr_decay=0.1,
               initial_accumulator_value=0.1), param, [("coo", (r[None, :], v, shape)) for r, v in hg],
               p, {"sum": st["sum"].numpy()}, touched_rows([r for r, _ in hg], shape[0]))

    # Sparse Adagrad with element-wise COO gradients (2 sparse dims, duplicates).
    eg = []
    for _ in range(3):
        idx = np.stack([rng.integers(0, shape[0], 6), rng.integers(0, shape[1], 6)])
        idx[:, -1] = idx[:, 0]
        eg.append((idx, rng.standard_normal(6).astype(f32)))
    tg = [torch.sparse_coo_tensor(torch.tensor(i), torch.tensor(v), shape) for i, v in eg]
    p, st = run_torch(torch.optim.Adagrad, param, tg, lr=0.05)
    write_case(f, "torch_adagrad_lazy_elements", dict(optimizer="adagrad", semantics="lazy", rule="torch", lr=0.05),
               param, [("coo", (i, v, shape)) for i, v in eg], p, {"sum": st["sum"].numpy()},
               touched_rows([i[0] for i, _ in eg], shape[0]))

    # SparseAdam.
    tg = [torch.sparse_coo_tensor(torch.tensor(r[None, :]), torch.tensor(v), shape) for r, v in hg]
    p, st = run_torch(torch.optim.SparseAdam, param, tg, lr=0.01, betas=(0.8, 0.9), eps=1e-6)
    write_case(f, "torch_sparse_adam", dict(optimizer="adam", semantics="lazy", rule="torch", lr=0.01, beta1=0.8, beta2=0.9,
               eps=1e-6), param, [("coo", (r[None, :], v, shape)) for r, v in hg], p,
               {"exp_avg": st["exp_avg"].numpy(), "exp_avg_sq": st["exp_avg_sq"].numpy()},
               touched_rows([r for r, _ in hg], shape[0]))

    # Dense Adam with weight decay.
    p, st = run_torch(torch.optim.Adam, param, [torch.tensor(g) for g in grads], lr=0.01, betas=(0.85, 0.95),
                      weight_decay=0.02, eps=1e-7)
    write_case(f, "torch_adam_dense", dict(optimizer="adam", semantics="dense", rule="torch", lr=0.01, beta1=0.85,
               beta2=0.95, weight_decay=0.02, eps=1e-7), param, [("dense", g) for g in grads], p,
               {"exp_avg": st["exp_avg"].numpy(), "exp_avg_sq": st["exp_avg_sq"].numpy()}, np.full(shape[0], 3))

    # SGD: momentum + dampening + weight decay; nesterov; sparse without momentum.
    p, st = run_torch(torch.optim.SGD, param, [torch.tensor(g) for g in grads], lr=0.1, momentum=0.9, dampening=0.1,
                      weight_decay=0.01)
    write_case(f, "torch_sgd_momentum", dict(optimizer="sgd", semantics="dense", rule="torch", lr=0.1, momentum=0.9,
               dampening=0.1, weight_decay=0.01), param, [("dense", g) for g in grads], p,
               {"momentum_buffer": st["momentum_buffer"].numpy()}, np.full(shape[0], 3))
    p, st = run_torch(torch.optim.SGD, param, [torch.tensor(g) for g in grads], lr=0.1, momentum=0.5, nesterov=True)
    write_case(f, "torch_sgd_nesterov", dict(optimizer="sgd", semantics="dense", rule="torch", lr=0.1, momentum=0.5,
               nesterov=True), param, [("dense", g) for g in grads], p,
               {"momentum_buffer": st["momentum_buffer"].numpy()}, np.full(shape[0], 3))
    tg = [torch.sparse_coo_tensor(torch.tensor(r[None, :]), torch.tensor(v), shape) for r, v in hg]
    p, _ = run_torch(torch.optim.SGD, param, tg, lr=0.1)
    write_case(f, "torch_sgd_lazy", dict(optimizer="sgd", semantics="lazy", rule="torch", lr=0.1), param,
               [("coo", (r[None, :], v, shape)) for r, v in hg], p, {}, touched_rows([r for r, _ in hg], shape[0]))


def seed_cases(f):
    """The seed computation (docs/SEMANTICS.md), written with torch.masked as in the tutorial."""
    from torch.masked import masked_tensor
    param = torch.arange(8).reshape(2, 4).float()
    i = torch.tensor([[0, 1, 1], [2, 0, 2]])
    v = torch.tensor([3, 4, 5], dtype=torch.float32)
    grad = torch.sparse_coo_tensor(i, v, [2, 4])
    state_sum = torch.full_like(param, 0.5)
    mask = grad.to_dense() != 0   # (0,2), (1,0), (1,2): no zero among the values
    masked_grad = masked_tensor(grad.to_dense(), mask)
    state_sum2 = state_sum + masked_grad.pow(2).get_data()
    std2 = masked_tensor(state_sum2, mask).sqrt().add(1e-10)
    param2 = param.add((masked_grad / std2).get_data(), alpha=-0.1)
    expected_sum = torch.where(mask, state_sum2, state_sum).numpy()
    options = dict(optimizer="adagrad", rule="torch", lr=0.1, eps=1e-10, initial_accumulator_value=0.5)
    write_case(f, "seed_masked_adagrad", dict(options, semantics="masked"), param.numpy(),
               [("masked", (grad.to_dense().numpy(), mask.numpy()))], param2.numpy(), {"sum": expected_sum}, [1, 1])
    # The same step, lazy with the sparse gradient, must agree (docs/SEMANTICS.md, "Masked semantics").
    write_case(f, "seed_lazy_adagrad", dict(options, semantics="lazy"), param.numpy(),
               [("coo", (i.numpy(), v.numpy(), (2, 4)))], param2.numpy(), {"sum": expected_sum}, [1, 1])


def masked_generic_cases(f):
    """Masked Adam and SGD: torch's dense formula on the mask, torch.where elsewhere."""
    shape = (6, 4)
    param = torch.tensor(rng.standard_normal(shape).astype(f32))
    mask = torch.tensor(rng.random(shape) < 0.5)
    grads = [torch.tensor(rng.standard_normal(shape).astype(f32)) for _ in range(3)]
    b1, b2, lr, eps, wd = 0.9, 0.99, 0.01, 1e-8, 0.01
    p, m, v = param.clone(), torch.zeros(shape), torch.zeros(shape)
    for t, g in enumerate(grads, start=1):
        g2 = g.add(p, alpha=wd)
        m_new = m.mul(b1).add_(g2, alpha=1 - b1)
        v_new = v.mul(b2).addcmul_(g2, g2, value=1 - b2)
        bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
        denom = (v_new.sqrt() / (bc2 ** 0.5)).add_(eps)
        p_new = p.addcdiv(m_new, denom, value=-(lr / bc1))
        p, m, v = torch.where(mask, p_new, p), torch.where(mask, m_new, m), torch.where(mask, v_new, v)
    last = np.where(mask.numpy().any(axis=1), 3, 0)
    write_case(f, "masked_adam", dict(optimizer="adam", semantics="masked", rule="torch", lr=lr, beta1=b1, beta2=b2, eps=eps,
               weight_decay=wd), param.numpy(), [("dense", g.numpy()) for g in grads], p.numpy(),
               {"exp_avg": m.numpy(), "exp_avg_sq": v.numpy()}, last, mask=mask.numpy())
    mu, lr = 0.9, 0.1
    p, buf = param.clone(), torch.zeros(shape)
    for t, g in enumerate(grads, start=1):
        buf_new = g.clone() if t == 1 else buf.mul(mu).add_(g, alpha=1)
        p_new = p.add(buf_new, alpha=-lr)
        p, buf = torch.where(mask, p_new, p), torch.where(mask, buf_new, buf)
    write_case(f, "masked_sgd_momentum", dict(optimizer="sgd", semantics="masked", rule="torch", lr=lr, momentum=mu),
               param.numpy(), [("dense", g.numpy()) for g in grads], p.numpy(), {"momentum_buffer": buf.numpy()}, last,
               mask=mask.numpy())


def clip(x, c):
    return x if c < 0 else np.clip(x, f32(-c), f32(c))


def mxnet_cases(f):
    # MXNet's checked example (docs/SEMANTICS.md, "Rule mxnet"): lazy SGD with momentum.
    w = np.ones((4, 2), f32)
    rows, data = np.array([1, 2]), np.array([[1, 2], [4, 5]], f32)
    mom = np.zeros_like(w)
    lr, mu = f32(0.01), f32(0.01)
    for r, g in zip(rows, data):
        mom[r] = mu * mom[r] - lr * f32(0) * w[r] - lr * g
        w[r] = w[r] + mom[r]
    assert np.allclose(mom[1:3], [[-0.01, -0.02], [-0.04, -0.05]]) and np.allclose(w[1:3], [[0.99, 0.98], [0.96, 0.95]])
    write_case(f, "mxnet_sgd_momentum_lazy_reference", dict(optimizer="sgd", semantics="lazy", rule="mxnet", lr=0.01,
               momentum=0.01), np.ones((4, 2), f32), [("rsp", (rows, data, (4, 2)))], w, {"momentum_buffer": mom}, [0, 1, 1, 0])

    shape = (8, 3)
    param = rng.standard_normal(shape).astype(f32)
    steps = []
    for _ in range(3):
        r = np.sort(rng.choice(shape[0], 3, replace=False))
        steps.append((r, rng.standard_normal((3, shape[1])).astype(f32) * f32(2)))
    last = touched_rows([r for r, _ in steps], shape[0])
    wd, rescale, clip_g = f32(0.01), f32(0.5), f32(0.6)

    # sgd_mom_update, lazy rows, with wd, rescale and clip.
    w, mom = param.copy(), np.zeros_like(param)
    for r, g in steps:
        mom[r] = f32(0.9) * mom[r] - f32(0.1) * wd * w[r] - f32(0.1) * clip(rescale * g, clip_g)
        w[r] = w[r] + mom[r]
    write_case(f, "mxnet_sgd_momentum_lazy", dict(optimizer="sgd", semantics="lazy", rule="mxnet", lr=0.1, momentum=0.9,
               weight_decay=0.01, rescale_grad=0.5, clip_gradient=0.6), param, [("rsp", (r, g, shape)) for r, g in steps],
               w, {"momentum_buffer": mom}, last)

    # Standard (dense) sgd_update with row-sparse gradients: every row decays.
    w = param.copy()
    for r, g in steps:
        full = np.zeros_like(w)
        full[r] = g
        w = (f32(1) - f32(0.1) * wd) * w - f32(0.1) * clip(rescale * full, clip_g)
    write_case(f, "mxnet_sgd_standard", dict(optimizer="sgd", semantics="dense", rule="mxnet", lr=0.1, weight_decay=0.01,
               rescale_grad=0.5, clip_gradient=0.6), param, [("rsp", (r, g, shape)) for r, g in steps], w, {},
               np.full(shape[0], 3))

    # adam_update, lazy: wd inside the clip, lr_t = lr * sqrt(1 - b2^t) / (1 - b1^t) in double.
    w, m, v = param.copy(), np.zeros_like(param), np.zeros_like(param)
    b1, b2, eps = f32(0.9), f32(0.999), f32(1e-8)
    for t, (r, g) in enumerate(steps, start=1):
        lr_t = f32(0.01 * (np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)))
        gr = clip(g * rescale + w[r] * wd, clip_g)
        m[r] = b1 * m[r] + (f32(1) - b1) * gr
        v[r] = b2 * v[r] + (f32(1) - b2) * gr * gr
        w[r] = w[r] - lr_t * m[r] / (np.sqrt(v[r]) + eps)
    write_case(f, "mxnet_adam_lazy", dict(optimizer="adam", semantics="lazy", rule="mxnet", lr=0.01, weight_decay=0.01,
               rescale_grad=0.5, clip_gradient=0.6), param, [("rsp", (r, g, shape)) for r, g in steps], w,
               {"exp_avg": m, "exp_avg_sq": v}, last)

    # Sparse adagrad_update: eps inside the square root.
    w, h = param.copy(), np.zeros_like(param)
    for r, g in steps:
        gr = clip(g * rescale, clip_g)
        h[r] = h[r] + gr * gr
        w[r] = w[r] - f32(0.1) * gr / np.sqrt(h[r] + f32(1e-7))
    write_case(f, "mxnet_adagrad_lazy", dict(optimizer="adagrad", semantics="lazy", rule="mxnet", lr=0.1, rescale_grad=0.5,
               clip_gradient=0.6), param, [("rsp", (r, g, shape)) for r, g in steps], w, {"sum": h}, last)


def torch_sparse_sgd_momentum_cases(f):
    """PyTorch 1.13's SGD with sparse gradients and momentum: the buffer is a sparse tensor whose
    pattern is the union of every row touched so far, so a row touched once keeps moving, its
    buffer decaying, at every later step. Gradients with duplicate rows, row sets that differ
    from step to step, a row-granular (hybrid COO) and an element-wise (2 sparse dims) case."""
    shape = (9, 3)
    param = rng.standard_normal(shape).astype(f32)
    hg = hybrid_grads(shape, 4, 3)

    def run(grads, **kw):
        p, st = run_torch(torch.optim.SGD, param, grads, **kw)
        buf = st["momentum_buffer"]
        return p, {"momentum_buffer": buf.to_dense().numpy()}

    def union_last_update(rows_per_step):
        # Every row in the buffer's pattern is written at every step after it enters.
        last = np.zeros(shape[0], dtype=np.int64)
        seen = set()
        for step, rows in enumerate(rows_per_step, start=1):
            seen.update(int(r) for r in rows)
            last[sorted(seen)] = step
        return last

    rows_per_step = [r for r, _ in hg]
    coo = [("coo", (r[None, :], v, shape)) for r, v in hg]
    tg = lambda: [torch.sparse_coo_tensor(torch.tensor(r[None, :]), torch.tensor(v), shape) for r, v in hg]
    for name, kw in [("torch_sgd_lazy_momentum", dict(momentum=0.9, dampening=0.1)),
                     ("torch_sgd_lazy_nesterov", dict(momentum=0.5, nesterov=True))]:
        p, states = run(tg(), lr=0.1, **kw)
        write_case(f, name, dict(optimizer="sgd", semantics="lazy", rule="torch", lr=0.1, **kw), param, coo, p, states,
                   union_last_update(rows_per_step))

    # Element-wise sparse gradients (2 sparse dims): the buffer holds elements; rows are what
    # last_update counts.
    eg = []
    for _ in range(3):
        idx = np.stack([rng.integers(0, shape[0], 4), rng.integers(0, shape[1], 4)])
        idx[:, -1] = idx[:, 0]  # a duplicate element
        eg.append((idx, rng.standard_normal(4).astype(f32)))
    p, states = run([torch.sparse_coo_tensor(torch.tensor(i), torch.tensor(v), shape) for i, v in eg], lr=0.05, momentum=0.8)
    write_case(f, "torch_sgd_lazy_momentum_elements", dict(optimizer="sgd", semantics="lazy", rule="torch", lr=0.05,
               momentum=0.8), param, [("coo", (i, v, shape)) for i, v in eg], p, states,
               union_last_update([i[0] for i, _ in eg]))


def main(path):
    with h5py.File(path, "w", track_order=True) as f:
        torch_cases(f)
        seed_cases(f)
        masked_generic_cases(f)
        mxnet_cases(f)
        torch_sparse_sgd_momentum_cases(f)


if __name__ == "__main__":
    main(sys.argv[1])
