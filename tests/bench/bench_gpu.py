#!/usr/bin/python3
"""The GPU against the CPU, on the whole commands users run (issue 14's workloads).

    bench_gpu.py SPARSITY WORKDIR [--runs N] [--threads N] [--small]

Skips (exit 0, a line saying why) when SPARSITY reports no usable CUDA device. For each
workload, in one run:
  ours --device cpu / cuda / auto   the whole `sparsity` command: wall seconds, compute_seconds
                                    and device_init_seconds of its --json report, peak memory
  torch, resident                   the same operation in PyTorch with the tensors already on the
                                    GPU (whatever torch the machine has; synchronized), and the
                                    fraction of the GPU's memory bandwidth that reaches, counting
                                    the bytes the operation must read and write
  torch, CPU -> GPU -> CPU          the same, with the upload and the download inside the clock
Every CUDA output is compared with the CPU output of the same command (masks exactly, values
to float rounding): a faster path must write what the path it replaces writes.

Workloads (float32): threshold 0.5 on 8192 x 8192; N:M 2:4 on 8192 x 8192; data-norm 1x4 at
0.5 on 4096 x 4096; lazy Adagrad on 1,000,000 x 64, 5 steps of 10,000 rows, resumed; dense
Adam on 4096 x 4096, 3 and 20 steps (the state stays on the GPU across steps); eval sum(sqrt(abs(x)) * x + 1.5, 1) over a 4096 x 4096
masked_tensor. --small divides every size by 16 (a quick check of the script itself)."""
import argparse
import json
import os
import subprocess
import sys
import time

import h5py
import numpy as np

from bench_common import PEAK_OF, best_run, timed, write_coo

DEVICES = ("cpu", "cuda", "auto")


class Workloads:
    def __init__(self, args):
        self.args = args
        self.scale = 16 if args.small else 1
        os.makedirs(args.workdir, exist_ok=True)
        self.rng = np.random.default_rng(0)

    def path(self, name):
        return os.path.join(self.args.workdir, name)

    def ours(self, argv, device, name):
        """One best-of-N run of `sparsity ARGV -o OUT --device DEVICE --json`."""
        out = self.path(f"{name}.{device}.h5")

        def once():
            if os.path.exists(out):
                os.remove(out)
            wall, stdout, peak = timed([*PEAK_OF, self.args.sparsity, *argv, "-o", out, "--device", device, "--json"])
            r = json.loads(stdout)
            return {"wall": wall, "compute": r["compute_seconds"], "init": r.get("device_init_seconds"),
                    "device": r.get("device"), "peak": peak}
        return best_run(self.args.runs, once), out

    # --- inputs -------------------------------------------------------------------------------
    def square(self, name, n):
        n //= self.scale
        if not os.path.exists(self.path(name)):
            with h5py.File(self.path(name), "w") as f:
                f["x"] = self.rng.standard_normal((n, n), dtype=np.float32)
        return n

    def lazy_table(self):
        rows, width, steps, batch = 1_000_000 // self.scale, 64, 5, 10_000 // self.scale
        if not os.path.exists(self.path("table.h5")):
            with h5py.File(self.path("table.h5"), "w") as f:
                f["param"] = self.rng.standard_normal((rows, width), dtype=np.float32)
                g = f.create_group("grads")
                for k in range(steps + 1):  # the last one makes prev.h5
                    unique = self.rng.choice(rows, batch - batch // 10, replace=False)
                    ids = np.concatenate([unique, self.rng.choice(unique, batch // 10)])
                    self.rng.shuffle(ids)
                    write_coo(g, str(k), ids, self.rng.standard_normal((batch, width), dtype=np.float32), (rows, width))
            subprocess.run([self.args.sparsity, "step", self.path("table.h5"), "-o", self.path("prev.h5"), "--param",
                            "/param", "--grad", f"/grads/{steps}", "--optimizer", "adagrad", "--semantics", "lazy",
                            "--device", "cpu"], check=True, capture_output=True)
        return rows, width, steps

    def dense_table(self, steps):
        n = 4096 // self.scale
        if not os.path.exists(self.path(f"adam{steps}.h5")):
            with h5py.File(self.path(f"adam{steps}.h5"), "w") as f:
                f["param"] = self.rng.standard_normal((n, n), dtype=np.float32)
                for k in range(steps):
                    f[f"grads/{k}"] = self.rng.standard_normal((n, n), dtype=np.float32)
        return n

    def masked_input(self):
        n = 4096 // self.scale
        if not os.path.exists(self.path("masked.h5")):
            with h5py.File(self.path("masked.h5"), "w") as f:
                g = f.create_group("mx")
                g.attrs["encoding-type"], g.attrs["encoding-version"] = "masked_tensor", "0.1.0"
                g["data"] = self.rng.standard_normal((n, n), dtype=np.float32)
                g["mask"] = self.rng.random((n, n)) < 0.7
        return n


TORCH = r"""
import json, sys, time
import h5py, torch
spec = json.loads(sys.argv[1])
torch.set_num_threads(spec["threads"])
dev = torch.device("cuda")
torch.ones(1, device=dev); torch.cuda.synchronize()   # context made before any clock

def clock(f, runs):
    best = float("inf")
    for _ in range(runs):
        torch.cuda.synchronize(); t = time.perf_counter(); f(); torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t)
    return best

def load(path, name):
    with h5py.File(path, "r") as f:
        return torch.from_numpy(f[name][()])

def coo(path, k, shape):
    with h5py.File(path, "r") as f:
        g = f[f"grads/{k}"]
        return torch.sparse_coo_tensor(torch.from_numpy(g["indices"][()]), torch.from_numpy(g["values"][()]), shape)

def nm(x):  # keep the 2 largest |x| of each group of 4 along the last dim
    g = x.reshape(-1, 4)
    keep = torch.zeros_like(g, dtype=torch.bool).scatter_(1, g.abs().topk(2, dim=1).indices, True)
    return (g * keep).reshape(x.shape)

w, runs, out = spec["workload"], spec["runs"], {}
if w in ("threshold", "nm"):
    host = load(spec["file"], "x")
    op = (lambda x: x * (x.abs() >= 0.5)) if w == "threshold" else nm
    x = host.to(dev)
    out["resident"] = clock(lambda: op(x), runs)
    out["roundtrip"] = clock(lambda: op(host.to(dev)).cpu(), runs)
    out["bytes"] = 2 * host.numel() * 4
elif w == "lazy_adagrad":
    table, prev = spec["file"], spec["prev"]
    p0, s0 = load(prev, "param"), load(prev, "state/sum")
    grads = [coo(table, k, tuple(p0.shape)) for k in range(spec["steps"])]
    def run(p0, s0, grads, to_host):
        p = torch.nn.Parameter(p0.clone())
        opt = torch.optim.Adagrad([p], lr=0.01)
        opt.state[p]["sum"], opt.state[p]["step"] = s0.clone(), torch.tensor(1.0)
        def steps():
            for g in grads:
                p.grad = g.to(p.device)
                opt.step()
            if to_host:
                p.detach().cpu(); opt.state[p]["sum"].cpu()
        return steps
    resident = run(p0.to(dev), s0.to(dev), [g.to(dev) for g in grads], False)
    out["resident"] = clock(resident, 1)
    out["roundtrip"] = clock(lambda: run(p0.to(dev), s0.to(dev), grads, True)(), runs)
    rows = sum(g.coalesce().indices().shape[1] for g in grads)
    out["bytes"] = rows * p0.shape[1] * 4 * 5   # each touched row: param and sum read and written, grad read
elif w == "adam":
    p0 = load(spec["file"], "param")
    grads = [load(spec["file"], f"grads/{k}") for k in range(spec["steps"])]
    def run(p0, grads, to_host):
        p = torch.nn.Parameter(p0.clone())
        opt = torch.optim.Adam([p], lr=1e-3, fused=True)
        def steps():
            for g in grads:
                p.grad = g.to(p.device)
                opt.step()
            if to_host:
                p.detach().cpu()
        return steps
    out["resident"] = clock(run(p0.to(dev), [g.to(dev) for g in grads], False), 1)
    out["roundtrip"] = clock(lambda: run(p0.to(dev), grads, True)(), runs)
    out["bytes"] = spec["steps"] * p0.numel() * 4 * 7   # p, m, v read and written, grad read
elif w == "eval":
    data, mask = load(spec["file"], "mx/data"), load(spec["file"], "mx/mask")
    op = lambda x, m: torch.where(m, x.abs().sqrt() * x + 1.5, 0).sum(1)
    x, m = data.to(dev), mask.to(dev)
    out["resident"] = clock(lambda: op(x, m), runs)
    out["roundtrip"] = clock(lambda: op(data.to(dev), mask.to(dev)).cpu(), runs)
    out["bytes"] = data.numel() * 5
else:
    out = None
print(json.dumps(out))
"""


def torch_side(args, spec):
    spec = {**spec, "runs": args.runs, "threads": args.threads}
    r = subprocess.run([sys.executable, "-c", TORCH, json.dumps(spec)], capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"}
    return json.loads(r.stdout)


def compare(cpu_out, gpu_out, exact):
    """Every dataset of the two outputs, masks (bool, integer) exactly, floats to rounding."""
    worst = 0.0
    with h5py.File(cpu_out) as a, h5py.File(gpu_out) as b:
        names = []
        a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        for n in names:
            x, y = a[n][()], b[n][()]
            if x.dtype.kind in "biu" or exact:
                if not np.array_equal(x, y):
                    return f"{n} differs"
            else:
                if not np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True):
                    return f"{n} differs beyond float rounding"
                worst = max(worst, float(np.max(np.abs(x.astype(np.float64) - y))) if x.size else 0.0)
    return f"same (max |diff| {worst:.1e})"


def device_name():
    """The GPU's name, memory and driver, as nvidia-smi gives them."""
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True)
    except FileNotFoundError:
        return "nvidia-smi not found"
    return r.stdout.strip() if r.returncode == 0 else "nvidia-smi failed"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sparsity")
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--hbm-gbs", type=float, default=None, help="the GPU's memory bandwidth, GB/s")
    args = parser.parse_args()
    version = subprocess.run([args.sparsity, "--version"], capture_output=True, text=True).stdout
    if "CUDA:" not in version or "unavailable" in version or "not compiled" in version:
        print("skipped: no usable CUDA device (" + version.strip().replace("\n", "; ") + ")")
        return
    w = Workloads(args)
    print(f"device: {device_name()}; {version.strip().splitlines()[-1]}; cores {os.cpu_count()}; best of {args.runs}")
    print()
    n = w.square("square.h5", 8192)
    nd = w.square("square4096.h5", 4096)
    rows, width, steps = w.lazy_table()
    na = w.dense_table(3)
    w.dense_table(20)
    ne = w.masked_input()
    grads = lambda k: sum([["--grad", f"/grads/{i}"] for i in range(k)], [])
    cases = [
        ("threshold", f"threshold 0.5, {n} x {n}", ["sparsify", w.path("square.h5"), "--method", "threshold",
                                                    "--threshold", "0.5"], True,
         {"workload": "threshold", "file": w.path("square.h5")}),
        ("nm", f"N:M 2:4, {n} x {n}", ["sparsify", w.path("square.h5"), "--method", "n-m"], True,
         {"workload": "nm", "file": w.path("square.h5")}),
        ("datanorm", f"data-norm 1x4 0.5, {nd} x {nd}", ["sparsify", w.path("square4096.h5"), "--method", "data-norm"],
         True, None),
        ("lazy_adagrad", f"lazy Adagrad {rows} x {width}, {steps} steps, resumed",
         ["step", w.path("table.h5"), "--state-from", w.path("prev.h5"), *grads(steps), "--optimizer", "adagrad",
          "--semantics", "lazy"], False,
         {"workload": "lazy_adagrad", "file": w.path("table.h5"), "prev": w.path("prev.h5"), "steps": steps}),
        *[(f"adam{k}", f"dense Adam {na} x {na}, {k} steps",
           ["step", w.path(f"adam{k}.h5"), "--param", "/param", *grads(k), "--optimizer", "adam", "--semantics",
            "dense"], False, {"workload": "adam", "file": w.path(f"adam{k}.h5"), "steps": k}) for k in (3, 20)],
        ("eval", f"eval sum(sqrt(abs(x))*x+1.5, 1), masked {ne} x {ne}",
         ["eval", "--expr", "sum(sqrt(abs(x)) * x + 1.5, 1)", "--input", f"x={w.path('masked.h5')}:/mx"], False,
         {"workload": "eval", "file": w.path("masked.h5")}),
    ]
    summary = []
    for name, title, argv, exact, spec in cases:
        results = {d: w.ours(argv, d, name) for d in DEVICES}
        agreement = compare(results["cpu"][1], results["cuda"][1], exact)
        theirs = torch_side(args, spec) if spec else None
        print(f"## {title}")
        print(f"{'run':34} {'wall s':>8} {'compute s':>9} {'init s':>7} {'peak MiB':>8}")
        for d in DEVICES:
            r = results[d][0]
            init = "-" if r["init"] is None else f"{r['init']:.3f}"
            label = f"sparsity --device {d}" + (f" (ran on {r['device']})" if d == "auto" and r["device"] else "")
            print(f"{label:34} {r['wall']:8.3f} {r['compute']:9.4f} {init:>7} {r['peak'] / 2**20:8.0f}")
        if theirs and "error" not in theirs:
            gbs = theirs["bytes"] / theirs["resident"] / 1e9
            frac = f", {100 * gbs / args.hbm_gbs:.0f}% of {args.hbm_gbs:.0f} GB/s" if args.hbm_gbs else ""
            print(f"{'torch, resident on the GPU':34} {'-':>8} {theirs['resident']:9.4f}   ({gbs:.0f} GB/s{frac})")
            print(f"{'torch, CPU -> GPU -> CPU':34} {'-':>8} {theirs['roundtrip']:9.4f}")
        elif theirs:
            print(f"torch: {theirs['error']}")
        print(f"cuda output vs cpu output: {agreement}")
        cpu, cuda, auto = (results[d][0]["compute"] for d in DEVICES)
        wcpu, wcuda, wauto = (results[d][0]["wall"] for d in DEVICES)
        print(f"compute: cuda is {cpu / cuda:.2f}x the cpu path; wall: {wcpu / wcuda:.2f}x; auto wall is "
              f"{wauto / min(wcpu, wcuda):.2f}x the faster device's")
        print()
        summary.append((title, wcpu, wcuda, wauto, agreement))
    print("## summary (wall seconds)")
    for title, wcpu, wcuda, wauto, agreement in summary:
        print(f"{title:52} cpu {wcpu:7.3f}  cuda {wcuda:7.3f}  auto {wauto:7.3f}  {agreement}")


if __name__ == "__main__":
    main()
