#!/usr/bin/python3
"""Desktop application benchmark (issue 7), driving the real widgets offscreen.

    bench_gui.py BENCH_BINARY WORKDIR [--runs N]

A 1,000,000 x 256 float32 dataset (1 GiB, written by h5py, chunked by rows):
  * open and first paint: open the file, select the dataset, paint the window (goal < 1 s);
  * one pan frame at 8x zoom: one heatmap repaint while dragging (goal < 30 ms);
  * one page: the row scroll bar moved by a window (read the next 16,384 rows, render, paint);
  * the overview strip of the whole table, built in the background a chunk per event-loop
    turn (and the longest the window waited for one chunk).
  * a data-norm recipe (1x4, level 0.5) previewed on the window with the whole table's choice
    (its block scores computed in the background), and a change of its level then;
  * the Gradcheck panel's check of mm(big, big) on a 64 x 64 float64 input (two 4096 x 4096
    Jacobians and their three maps): from the request to the result shown, and the longest
    the window froze meanwhile.
The app loads at most 4 Mi elements of a tensor at a time (16,384 rows here).
Reference on the same data, same run: what a Python viewer does before it can draw the same
rows — h5py reads them and numpy finds the colour scale (np.percentile(|x|, 99.5)); the ratio
is reference time / our open time (> 1: we open faster than Python only prepares the data).
For the overview: h5py reads the whole table in the same chunks and numpy keeps the value of
largest |x| per block of rows and column (2048 blocks)."""
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

    gradcheck_path = os.path.join(args.workdir, "gradcheck_64_x_64.h5")
    with h5py.File(gradcheck_path, "w") as f:
        f["big"] = np.sin(0.1 * np.arange(64 * 64, dtype=np.float64)).reshape(64, 64)

    r = ours(args.binary, path, "/emb", args.runs, gradcheck_path)
    loaded = r["rows_loaded"]
    with h5py.File(path) as f:
        def python_side():
            x = f["emb"][:loaded]
            np.percentile(np.abs(x), 99.5)
        t_ref = best_of(args.runs, python_side)

        def python_overview():
            d = f["emb"]
            rows, cols = d.shape
            per_bin = -(-rows // 2048)
            out = np.zeros((-(-rows // per_bin), cols), np.float32)
            chunk = per_bin * 8
            for start in range(0, rows, chunk):
                x = d[start:start + chunk]
                n = x.shape[0]
                pad = (-n) % per_bin
                if pad:
                    x = np.concatenate([x, np.zeros((pad, cols), x.dtype)])
                blocks = x.reshape(-1, per_bin, cols)
                pick = np.take_along_axis(blocks, np.abs(blocks).argmax(axis=1)[:, None, :], axis=1)[:, 0, :]
                out[start // per_bin:start // per_bin + pick.shape[0]] = pick
        t_overview = best_of(1, python_overview)

    print(f"rows loaded: {loaded} of {r['rows_total']}")
    print(f"{'case':40s} {'ours (s)':>10s} {'goal (s)':>10s} {'h5py+numpy (s)':>15s} {'ratio':>7s}")
    print(f"{'open + first paint 1M x 256 float32':40s} {r['open_first_paint_seconds']:10.4f} {1.0:10.3f} "
          f"{t_ref:15.4f} {t_ref / r['open_first_paint_seconds']:7.2f}")
    print(f"{'one pan frame at 8x zoom':40s} {r['pan_frame_seconds']:10.4f} {0.030:10.3f}")
    print(f"{'one page of 16,384 rows (scroll bar)':40s} {r['page_seconds']:10.4f}")
    print(f"{'  longest event-loop stall while paging':40s} {r['page_longest_stall_seconds']:10.4f}")
    print(f"{'overview of all 1M rows (background)':40s} {r['overview_seconds']:10.4f} {'':>10s} "
          f"{t_overview:15.4f} {t_overview / r['overview_seconds']:7.2f}")
    print(f"{'  longest wait for one overview chunk':40s} {r['overview_longest_step_seconds']:10.4f} {0.030:10.3f}")
    print(f"{'data-norm preview, whole table ranked':40s} {r['whole_table_preview_seconds']:10.4f}")
    print(f"{'  longest event-loop stall meanwhile':40s} {r['whole_table_preview_longest_stall_seconds']:10.4f}")
    print(f"{'  one level change then':40s} {r['preview_level_change_seconds']:10.4f}")
    print(f"{'gradcheck mm(big, big), 64 x 64: result':40s} {r['gradcheck_result_seconds']:10.4f}")
    print(f"{'  longest event-loop stall meanwhile':40s} {r['gradcheck_longest_stall_seconds']:10.4f}")


if __name__ == "__main__":
    main()
