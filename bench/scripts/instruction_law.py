#!/usr/bin/env python3
"""Iteration costs against the instructions a warp executes per iteration (docs/validation change 56).

    bench/scripts/instruction_law.py ISSUE_PROBE.tgz RESIDENCY.jsonl LENGTH.jsonl [COUNTS.tgz ITERATION.jsonl]

ISSUE_PROBE.tgz: Nsight Compute's counters of two GEMM sweeps (m n k = 2048 2048 2048 and 8192
2048 512, four tiles each, 8 warps, 3 stages) and two FlashAttention-2 sweeps
(bench/results/h100_issue_probe_2026-11-25.tgz). RESIDENCY.jsonl: the residency series (GEMM
blocks alone on their SMs for 256 iterations, then two and three per SM;
bench/results/h100_residency_series_2026-11-25.jsonl). LENGTH.jsonl: the length series
(one-wave FlashAttention-2 grids at 1-256 K/V iterations; bench/results/h100_length_series_2026-11-27/).

GEMM. The two sweeps share the tiles and differ in K (64 and 16 iterations a block), so the
difference of their instructions per warp, over the 48 iterations between them, is what one
iteration costs a warp, free of the prologue and epilogue. The script prints it per tile next
to the residency series' time per iteration with one, two and three blocks per SM, and fits
lone-block time = a + b x instructions by least squares.

FlashAttention-2. The issue probe's instruction law (bench/scripts/issue_probe_summary.py:
64.0 + 0.95 per MMA + 25.2 per cp.async chunk per thread + 3.59 per score column + 1.05 per
head-dim column, per warp and K/V iteration) gives each length-series tile's instructions; its
measured cost of one more iteration of the whole wave (least squares time = F + I x n over
n >= 4) is printed per instruction a warp executes and per instruction each SM sub-partition
issues (k = resident warps / 4).

With COUNTS.tgz (bench/scripts/issue_probe.sh SET gemm-iter: the iteration series' one-wave GEMM
grids at K = 2048 and 8192, instruction counts only; bench/results/h200_gemm_inst_counts_2026-11-28.tgz)
and ITERATION.jsonl (the iteration series, bench/results/h100_iteration_series_2026-11-26/iter.jsonl),
it also prints every tile x {4, 8} warps x {2, 3, 4} stages: instructions per warp and iteration
(the difference over the 192 iterations between the two K), the measured ns per iteration with
one and two blocks per SM, and a least-squares line lone = a + b x instructions per warps and
stages. Pure Python; exit 2 with a one-line error on unreadable input.
"""
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from issue_probe_summary import gemm_grid_rows, iteration_series_times, num, parse, read_sources  # noqa: E402
from probe_records import line as least_squares_line  # noqa: E402

TIME = "gpu__time_duration.sum"
SMS = 132  # the H100 SXM the series were measured on
FLASH2_LAW = (64.0, 0.95, 25.2, 3.59, 1.05)  # issue_probe_summary.py's fit, committed probe


def fail(msg):
    print(f"instruction_law.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def records(path):
    try:
        with open(path) as f:
            return [json.loads(l) for l in f if l.startswith('{"workload"')]
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")


def line(points):
    try:
        return least_squares_line(points)
    except ValueError as e:
        fail(str(e))


def gemm(probe, residency):
    inst = {}
    for name, d in probe.items():
        m = re.match(r"gemm_(\d+)x(\d+)x(\d+)_(\d+)x(\d+)$", name)
        if m:
            M, N, K, tm, tn = map(int, m.groups())
            inst[(M, N, K, tm, tn)] = num(d, "smsp__inst_executed.sum") / ((M // tm) * (N // tn) * 8)
    per_iter = {}
    for (M, N, K, tm, tn), v in inst.items():
        other = inst.get((8192, 2048, 512, tm, tn)) if K == 2048 else None
        if other is not None:
            per_iter[(tm, tn)] = (v - other) / (K // 32 - 512 // 32)
    if len(per_iter) < 2:
        fail("the issue probe holds fewer than two GEMM tiles in both sweeps")
    times = defaultdict(dict)  # (tm, tn) -> blocks per SM -> ns per iteration
    for r in residency:
        w = r["workload"]
        if w["kernel"] != "gemm" or w["warps"] != 8 or w["stages"] != 3:
            continue
        launch = r["launches"][0]
        # blocks_per_sm is the occupancy limit; the series' grids hold 1, 2 or 3 waves' worth of
        # one block per SM (132 SMs), all resident at once.
        grid = launch["grid"][0] * launch["grid"][1] * launch["grid"][2]
        times[(w["tile_m"], w["tile_n"])][grid // SMS] = launch["metrics"][TIME] / (w["k"] / w["tile_k"])
    pts = [(per_iter[t], times[t][1]) for t in sorted(per_iter) if 1 in times.get(t, {})]
    if len(pts) < 2:
        fail("the residency series holds fewer than two lone GEMM tiles of the probe")
    a, b = line(pts)
    print("GEMM, 8 warps, 3 stages: instructions per warp per iteration (issue probe) and ns per")
    print("iteration with 1, 2, 3 blocks per SM (residency series)")
    print("%-9s %8s %8s %8s %8s %10s %9s" % ("tile", "inst", "1/SM", "2/SM", "3/SM", "a + b inst", "residual"))
    worst = 0.0
    for t in sorted(per_iter, key=lambda t: per_iter[t]):
        ts = times.get(t, {})
        fit = a + b * per_iter[t]
        res = ts[1] - fit if 1 in ts else float("nan")
        if 1 in ts:
            worst = max(worst, abs(res))
        print("%-9s %8.1f %8s %8s %8s %10.1f %9.1f" % (
            f"{t[0]}x{t[1]}", per_iter[t], *("%.1f" % ts[k] if k in ts else "-" for k in (1, 2, 3)), fit, res))
    print("lone-block iteration = %.1f ns + %.3f ns x instructions per warp (worst residual %.1f ns)" % (a, b, worst))


def flash2(length):
    pts = defaultdict(list)
    meta = {}
    for r in length:
        w = r["workload"]
        if w["kernel"] != "attention-flash2":
            continue
        key = (w["head_dim"], w["tile_m"], w["tile_n"])
        n = w["seq_kv"] // w["tile_n"]
        if n >= 4:
            pts[key].append((n, r["launches"][0]["metrics"][TIME]))
        meta[key] = (w["warps"], r["launches"][0]["blocks_per_sm"])
    if not pts:
        fail("the length series holds no FlashAttention-2 grid with 4 or more iterations")
    c0, c_mma, c_chunk, c_col, c_d = FLASH2_LAW
    print("\nFlashAttention-2 (length series, one wave): the wave's cost of one more K/V iteration (I),")
    print("per instruction a warp executes and per instruction a sub-partition issues (k warps each)")
    print("%-12s %3s %3s %5s %8s %8s %9s %11s" % ("tile", "W", "B", "k", "inst", "I (ns)", "I / inst", "I / (k inst)"))
    ratios = []
    for key in sorted(pts):
        if len(pts[key]) < 2:
            continue
        d, br, bc = key
        warps, blocks = meta[key]
        inst = c0 + c_mma * bc * d / 64 + c_chunk * bc * d / (128 * warps) + c_col * bc + c_d * d
        k = blocks * warps / 4
        _, slope = line(pts[key])
        ratios.append(slope / inst)
        print("%-12s %3d %3d %5.1f %8.0f %8.0f %9.2f %11.2f" % (
            f"d{d} {br}x{bc}", warps, blocks, k, inst, slope, slope / inst, slope / (k * inst)))
    print("I / inst over %d tiles: %.2f to %.2f ns" % (len(ratios), min(ratios), max(ratios)))


def iteration_series(counts_path, series):
    try:
        rows = gemm_grid_rows(counts_path, "gemmiter")
    except (OSError, ValueError) as e:
        fail(f"{counts_path}: {e}")
    inst = {key: num(row, "smsp__inst_executed.sum") for key, row in rows.items()}
    per = {}
    for (tm, tn, w, s, k), v in inst.items():
        if k == 8192 and (tm, tn, w, s, 2048) in inst:
            per[(tm, tn, w, s)] = (v - inst[(tm, tn, w, s, 2048)]) / (SMS * w * (8192 - 2048) // 32)
    if not per:
        fail(f"{counts_path}: no configuration counted at both K = 2048 and 8192")
    times = iteration_series_times(series, SMS)
    print("\nGEMM iteration series: instructions per warp and iteration (counts) and ns per iteration")
    print("with 1 and 2 blocks per SM (series)")
    print("%-9s %2s %2s %8s %8s %8s %8s" % ("tile", "W", "S", "inst", "1/SM", "2/SM", "ns/inst"))
    groups = defaultdict(list)
    for key in sorted(per):
        t = times.get(key, {})
        lone = t.get(1)
        if lone is not None:
            groups[key[2:]].append((per[key], lone))
        print("%-9s %2d %2d %8.1f %8s %8s %8s" % (
            f"{key[0]}x{key[1]}", key[2], key[3], per[key], "%.1f" % lone if lone else "-",
            "%.1f" % t[2] if 2 in t else "-", "%.2f" % (lone / per[key]) if lone else "-"))
    for (w, s), pts in sorted(groups.items()):
        if len({x for x, _ in pts}) < 2:
            continue
        a, b = line(pts)
        worst = max(abs(y - a - b * x) for x, y in pts)
        print("%d warps, %d stages: lone-block iteration = %.1f ns + %.3f ns x instructions (worst residual %.1f ns)"
              % (w, s, a, b, worst))


def main():
    if len(sys.argv) not in (4, 6):
        sys.exit(__doc__)
    try:
        probe = {}
        for name, text in read_sources(sys.argv[1]).items():
            launches = parse(text)
            if len(launches) == 1:
                probe[name] = launches[0]
    except (OSError, ValueError) as e:
        fail(f"{sys.argv[1]}: {e}")
    gemm(probe, records(sys.argv[2]))
    flash2(records(sys.argv[3]))
    if len(sys.argv) == 6:
        iteration_series(sys.argv[4], records(sys.argv[5]))


if __name__ == "__main__":
    main()
