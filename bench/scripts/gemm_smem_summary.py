#!/usr/bin/env python3
"""What a GEMM block-iteration asks of the SM's pipes, against what a second block adds (change 57).

    bench/scripts/gemm_smem_summary.py GEMM_SMEM.tgz ITERATION.jsonl

GEMM_SMEM.tgz: Nsight Compute's shared-memory and pipe counters of the iteration series' one-wave
GEMM grids (132 blocks, every tile x {4, 8} warps x {3, 4} stages, K = 2048 and 8192;
bench/scripts/issue_probe.sh SET gemm-smem; bench/results/h200_gemm_smem_2026-11-28.tgz).
ITERATION.jsonl: the iteration series (the same grids at K = 8192 with one and two blocks per SM,
measured on the H100; bench/results/h100_iteration_series_2026-11-26/iter.jsonl).

Per block and iteration (the difference between K = 8192 and 2048 over their 192 iterations,
free of prologue and epilogue) it prints the instructions per warp, the ldmatrix instructions, the
shared-memory wavefronts of ldmatrix and of all shared-memory traffic, the bank conflicts, and
what the simulator's lowering charges the shared-memory pipe: the warps' fragment reads,
(WN x TM + WM x TN) x TK x 2 bytes for a WM x WN warp grid, and cp.async's tile fill,
(TM + TN) x TK x 2 bytes, at 128 bytes per clock (1.98 GHz). Next to them: the measured ns per
iteration with one block per SM and what a second resident block adds (the increment; none where
only one block fits, as for 128 x 128 at 8 warps), and the increment
over the pipe time that the model's "wait, then the resident blocks' pipe work in turn" adds, and
over the ldmatrix wavefronts alone (at one per clock).
The tensor pipe's busy time per block-iteration is its active share (sm__pipe_tensor_op_hmma) of
the K = 8192 launch's time per iteration. Pure Python; exit 2 with a one-line error on unreadable
input.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from issue_probe_summary import gemm_grid_rows, iteration_series_times, num  # noqa: E402

SMS = 132            # blocks of a one-wave grid (the H100 SXM and H200 both have 132 SMs)
CLOCK_GHZ = 1.98     # max SM clock of both cards (clocks were not locked)
TK = 32
ITERS = (8192 - 2048) // TK
TIME = "gpu__time_duration.sum"
WARP_GRID = {4: (2, 2), 8: (2, 4)}  # warps -> (WM, WN), kernels/gemm/gemm_run.cuh
METRICS = {
    "inst": "smsp__inst_executed.sum",
    "ldsm": "smsp__inst_executed_op_ldsm.sum",
    "wf": "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "wf_ld": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
}
TENSOR_PCT = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"


def fail(msg):
    print(f"gemm_smem_summary.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def counters(path):
    try:
        rows = gemm_grid_rows(path, "gemmsmem")
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    out = {}
    for key, row in rows.items():
        vals = {k: num(row, v) for k, v in METRICS.items()}
        vals["tensor_pct"] = num(row, TENSOR_PCT)
        vals["time"] = num(row, TIME)
        if any(v != v for v in vals.values()):  # NaN: a counter missing from the file
            fail(f"{path}: gemmsmem_{key[0]}x{key[1]}_w{key[2]}_s{key[3]}_k{key[4]}: a counter is missing "
                 f"({', '.join(sorted(METRICS.values()))}, {TENSOR_PCT})")
        out[key] = vals
    return out


def series(path):
    try:
        with open(path) as f:
            recs = [json.loads(line) for line in f if line.startswith('{"workload"')]
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    # Two blocks per SM only where both fit (128 x 128 at 8 warps holds one: its second block is a
    # second wave, not a resident one).
    return iteration_series_times(recs, SMS, resident_only=True)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    c = counters(sys.argv[1])
    times = series(sys.argv[2])
    per = {}
    for (tm, tn, w, s, k), v in c.items():
        if k != 8192 or (tm, tn, w, s, 2048) not in c:
            continue
        lo = c[(tm, tn, w, s, 2048)]
        d = {key: (v[key] - lo[key]) / (SMS * ITERS) for key in METRICS}
        d["inst"] /= w
        d["tensor_ns"] = v["tensor_pct"] / 100 * v["time"] / (8192 // TK)
        per[(tm, tn, w, s)] = d
    if not per:
        fail(f"{sys.argv[1]}: no configuration profiled at both K = 2048 and 8192")
    print("GEMM block-iteration (counts: H200, the same sm_90 binary as the H100's; times: H100 iteration series)")
    print("%-8s %2s %2s %6s %5s %6s %6s %6s %6s %5s %7s %7s %6s %6s %6s %6s" % (
        "tile", "W", "S", "inst", "ldsm", "wf_ld", "read", "wf", "rd+fil", "confl",
        "1/SM", "2/SM", "added", "pipe", "a/pipe", "tensor"))
    exact = 0
    conflicts = 0.0
    ratios = []
    for key in sorted(per):
        tm, tn, w, s = key
        d = per[key]
        wm, wn = WARP_GRID[w]
        read_wf = (wn * tm + wm * tn) * TK * 2 / 128
        fill_wf = (tm + tn) * TK * 2 / 128
        pipe_ns = (read_wf + fill_wf) / CLOCK_GHZ
        t = times.get(key, {})
        lone, two = t.get(1), t.get(2)
        added = two - lone if lone is not None and two is not None else None
        if abs(d["wf_ld"] - read_wf) <= 0.01 * read_wf:
            exact += 1
        conflicts += d["conflicts"]
        if added is not None:
            ratios.append((key, added / pipe_ns, added / max(pipe_ns, d["tensor_ns"]),
                           added / max(d["wf_ld"] / CLOCK_GHZ, d["tensor_ns"])))
        print("%-8s %2d %2d %6.1f %5.1f %6.1f %6.1f %6.1f %6.1f %5.1f %7s %7s %6s %6.1f %6s %6.1f" % (
            f"{tm}x{tn}", w, s, d["inst"], d["ldsm"], d["wf_ld"], read_wf, d["wf"], read_wf + fill_wf,
            d["conflicts"], "%.1f" % lone if lone else "-", "%.1f" % two if two else "-",
            "%.1f" % added if added is not None else "-", pipe_ns,
            "%.2f" % (added / pipe_ns) if added is not None else "-", d["tensor_ns"]))
    print("check: ldmatrix wavefronts = the lowering's fragment bytes / 128 (within 1%%) in %d of %d "
          "configurations; bank conflicts per block-iteration, summed: %.1f" % (exact, len(per), conflicts))
    if ratios:
        lo = min(ratios, key=lambda r: r[1])
        hi = max(ratios, key=lambda r: r[1])
        lo2 = min(r[2] for r in ratios)
        hi2 = max(r[2] for r in ratios)
        print("second block's added ns over the pipe time (read + fill) / 128 B per clock: %.2f (%dx%d, %d warps, "
              "%d stages) to %.2f (%dx%d, %d warps, %d stages); over the larger of that and the tensor pipe's "
              "busy time: %.2f to %.2f" % (lo[1], *lo[0], hi[1], *hi[0], lo2, hi2))
        print("... over the larger of its ldmatrix wavefronts at one per clock and the tensor pipe's busy time: "
              "%.2f to %.2f" % (min(r[3] for r in ratios), max(r[3] for r in ratios)))


if __name__ == "__main__":
    main()
