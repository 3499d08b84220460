#!/usr/bin/python3
"""Desktop application benchmark (issue 7), driving the real widgets offscreen.

    bench_gui.py BENCH_BINARY WORKDIR [--runs N]

A 1,000,000 x 256 float32 dataset (1 GiB, written by h5py, chunked by rows):
  * open and first paint: open the file, select the dataset, paint the window (goal < 1 s);
  * one pan frame at 8x zoom: one heatmap repaint while dragging (goal < 30 ms);
  * one page: the row scroll bar moved by a window (read the next 16,384 rows, render, paint).
The app loads at most 4 Mi elements of a tensor at a time (16,384 rows here).
Reference on the same data, same run: what a Python viewer does before it can draw the same
rows — h5py reads them and numpy finds the colour scale (np.percentile(|x|, 99.5)); the ratio
is reference time / our open time (> 1: we open faster than Python only prepares the data)."""
import os

import h5py
import numpy as np

from bench_common import bench_setup, best_of, ours


def main():
    args = bench_setup(runs=3)
    path = os.path.join(args.workdir, "table_1m_x_256.h5")
    if not os.path.exists(path):
        rng = np.random.default_rng(0)
        with h5py.File(path, "w") as f:
            d = f.create_dataset("emb", (1_000_000, 256), np.float32, chunks=(4096, 256))
            for start in range(0, 1_000_000, 65536):
                rows = min(65536, 1_000_000 - start)
                d[start:start + rows] = rng.standard_normal((rows, 256), dtype=np.float32)

    r = ours(args.binary, path, "/emb", args.runs)
    loaded = r["rows_loaded"]
    with h5py.File(path) as f:
        def python_side():
            x = f["emb"][:loaded]
            np.percentile(np.abs(x), 99.5)
        t_ref = best_of(args.runs, python_side)

    print(f"rows loaded: {loaded} of {r['rows_total']}")
    print(f"{'case':40s} {'ours (s)':>10s} {'goal (s)':>10s} {'h5py+numpy (s)':>15s} {'ratio':>7s}")
    print(f"{'open + first paint 1M x 256 float32':40s} {r['open_first_paint_seconds']:10.4f} {1.0:10.3f} "
          f"{t_ref:15.4f} {t_ref / r['open_first_paint_seconds']:7.2f}")
    print(f"{'one pan frame at 8x zoom':40s} {r['pan_frame_seconds']:10.4f} {0.030:10.3f}")
    print(f"{'one page of 16,384 rows (scroll bar)':40s} {r['page_seconds']:10.4f}")


if __name__ == "__main__":
    main()
