"""Helpers shared by the benchmark scripts: best-of-N timing and running our C++ timing
drivers (each prints one JSON object)."""
import json
import subprocess
import time


def best_of(runs, f):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


def ours(binary, *args):
    out = subprocess.run([binary, *map(str, args)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)
