#!/usr/bin/env python3
"""Summarises issue_probe.sh's Nsight Compute CSVs (or the committed tarball of them).

Prints, per profiled launch (name#i for the i-th launch of a multi-launch case): time, SM clock, issue-slot use, warps per scheduler, instructions, tensor-pipe
use and the main stall reasons (warps stalled per issue); then, for the flash2 cases, a least-
squares fit of the instructions one warp executes per K/V iteration against what the kernel's
source says it does per iteration (kernels/attention/flash2/flash2.cuh):
    inst = c0 + c_mma * (Bc d / 64) + c_chunk * (Bc d / (128 W)) + c_col * Bc + c_d * d
Bc d / 64 are the warp's m16n8k16 MMAs (QK^T and PV), Bc d / (128 W) the 16-byte cp.async
chunks each thread issues for K and V, Bc the score columns of its softmax, d the accumulator
rescale. Pure Python (no numpy), so it runs wherever the repository builds.

usage: issue_probe_summary.py DIR_OR_TGZ
"""
import csv
import io
import math
import re
import sys
import tarfile
from pathlib import Path

STALLS = ["long_scoreboard", "short_scoreboard", "mio_throttle", "math_pipe_throttle", "wait",
          "not_selected", "barrier", "dispatch_stall"]


def read_sources(arg):
    p = Path(arg)
    if p.is_dir():
        return {f.stem: f.read_text() for f in sorted(p.glob("*.csv"))}
    out = {}
    with tarfile.open(p) as t:
        for m in sorted(t.getmembers(), key=lambda m: m.name):
            if m.name.endswith(".csv"):
                out[Path(m.name).stem] = t.extractfile(m).read().decode()
    return out


def parse(text):
    """ncu --csv --page raw: header, units, one row per profiled launch (non-CSV lines skipped).
    Returns one dict per launch, in launch order."""
    lines = [line for line in text.splitlines(keepends=True) if line.startswith('"')]
    rows = list(csv.reader(io.StringIO("".join(lines))))
    if len(rows) < 3:
        raise ValueError("no profiled launch in the file")
    return [dict(zip(rows[0], r)) for r in rows[2:]]


def num(d, key):
    try:
        return float(d[key].replace(",", ""))
    except (KeyError, ValueError):
        return math.nan


def gemm_grid_rows(arg, prefix):
    """The first profiled launch of each per-grid file <prefix>_<TM>x<TN>_w<W>_s<S>_k<K> of
    issue_probe.sh's gemm-iter / gemm-smem sets, keyed by (TM, TN, W, S, K). Raises OSError or
    ValueError (with the file's name) on an unreadable source."""
    out = {}
    for name, text in read_sources(arg).items():
        m = re.match(prefix + r"_(\d+)x(\d+)_w(\d+)_s(\d+)_k(\d+)$", name)
        if not m:
            continue
        try:
            out[tuple(map(int, m.groups()))] = parse(text)[0]
        except (ValueError, IndexError) as e:
            raise ValueError(f"{name}: {e}") from e
    return out


def iteration_series_times(records, sms, resident_only=False):
    """ns per k-iteration of the iteration series' GEMM grids (validate/scripts/iteration_series.sh),
    keyed by (TM, TN, W, S) and then blocks per SM (grid / sms). resident_only: skip grids whose
    blocks per SM exceed the launch's occupancy (a second wave rather than a resident block)."""
    times = {}
    for r in records:
        w = r["workload"]
        if w.get("kernel") != "gemm":
            continue
        launch = r["launches"][0]
        per_sm = launch["grid"][0] * launch["grid"][1] * launch["grid"][2] // sms
        if resident_only and per_sm > launch.get("blocks_per_sm", 1):
            continue
        times.setdefault((w["tile_m"], w["tile_n"], w["warps"], w["stages"]), {})[per_sm] = \
            launch["metrics"]["gpu__time_duration.sum"] / (w["k"] / w["tile_k"])
    return times


def solve(a, b):
    """Solves the square system a x = b by Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for k in range(c, n + 1):
                m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: issue_probe_summary.py DIR_OR_TGZ")
    cases = {}
    for name, text in read_sources(sys.argv[1]).items():
        try:
            launches = parse(text)
        except ValueError as e:
            sys.exit(f"{name}: {e}")
        for i, d in enumerate(launches):  # a multi-launch case (naive attention): name#1, #2, ...
            cases[name if len(launches) == 1 else f"{name}#{i + 1}"] = d
    if not cases:
        sys.exit(f"{sys.argv[1]}: no .csv files")
    print("%-32s %8s %5s %6s %5s %7s %5s  %s" % ("case", "time_us", "GHz", "issue%", "warps", "inst_M", "tens%",
                                                 " ".join(s[:9] for s in STALLS)))
    for name, d in cases.items():
        print("%-32s %8.1f %5.2f %6.1f %5.2f %7.1f %5.1f  %s" % (
            name, num(d, "gpu__time_duration.sum") / 1e3, num(d, "gpc__cycles_elapsed.avg.per_second") / 1e9,
            num(d, "smsp__issue_active.avg.pct_of_peak_sustained_active"),
            num(d, "smsp__warps_active.avg.per_cycle_active"), num(d, "smsp__inst_executed.sum") / 1e6,
            num(d, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"),
            " ".join("%9.2f" % num(d, f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio")
                     for s in STALLS)))
    xs, ys, names = [], [], []
    for name, d in cases.items():
        m = re.match(r"flash2_b(\d+)h(\d+)n(\d+)d(\d+)_(\d+)x(\d+)$", name)
        if not m:
            continue
        b, h, n, dh, br, bc = map(int, m.groups())
        w = br // 16
        warp_iterations = b * h * (n // 16) * (n // bc)
        xs.append([1.0, bc * dh / 64, bc * dh / (128 * w), float(bc), float(dh)])
        ys.append(num(d, "smsp__inst_executed.sum") / warp_iterations)
        names.append(name)
    if len(xs) < 5:
        return
    k = len(xs[0])
    ata = [[sum(x[i] * x[j] for x in xs) for j in range(k)] for i in range(k)]
    aty = [sum(x[i] * y for x, y in zip(xs, ys)) for i in range(k)]
    c = solve(ata, aty)
    print("\nflash2: instructions per warp per K/V iteration = %.1f + %.2f/MMA + %.1f/cp.async chunk per thread"
          " + %.2f/score column + %.2f/head-dim column" % tuple(c))
    worst = 0.0
    for name, x, y in zip(names, xs, ys):
        fit = sum(ci * xi for ci, xi in zip(c, x))
        worst = max(worst, abs(fit / y - 1))
        print("  %-30s measured %7.1f  fit %7.1f  (chunks per thread %2.0f)" % (name, y, fit, x[2]))
    print("  worst relative error of the fit: %.1f%%" % (100 * worst))


if __name__ == "__main__":
    main()
