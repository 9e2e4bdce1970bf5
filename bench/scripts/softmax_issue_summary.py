#!/usr/bin/env python3
"""The softmax kernel's warp-instructions and issue, from Nsight Compute (docs/validation change 59).

    bench/scripts/softmax_issue_summary.py SOFTMAX_W.tgz

SOFTMAX_W.tgz: bench/scripts/issue_probe.sh SET softmax-w (safe and online softmax at 1, 2 and 4
warps on 131072 x 512, 32768 x 2048 and 8192 x 2048, one row per block;
bench/results/h200_softmax_w_2026-11-28.tgz). Prints per launch the time, the warp-instructions
per row, the share of active cycles in which the schedulers issued, the warps per scheduler and
the main stalls; then, per variant, the least-squares law
    warp-instructions per row = F x warps + S x columns / 256
(F: each warp's row overhead, the block reductions included; S: one warp's 256 columns over all
passes) with each launch's count against it. core/kernel_registers.cpp
compiled_softmax_instructions holds these F and S. Pure Python; exit 2 with a one-line error on
unreadable input.
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from issue_probe_summary import num, parse, read_sources, solve  # noqa: E402

STALLS = ["long_scoreboard", "barrier", "short_scoreboard", "wait", "not_selected", "math_pipe_throttle"]


def fail(msg):
    print(f"softmax_issue_summary.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        sources = read_sources(sys.argv[1])
    except (OSError, ValueError) as e:
        fail(f"{sys.argv[1]}: {e}")
    rows = []
    for name, text in sources.items():
        m = re.match(r"softmax_(safe|online)_r(\d+)c(\d+)_w(\d+)$", name)
        if not m:
            continue
        try:
            d = parse(text)[0]
        except (ValueError, IndexError) as e:
            fail(f"{sys.argv[1]}: {name}: {e}")
        v, r, c, w = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
        inst = num(d, "smsp__inst_executed.sum")
        if inst != inst:
            fail(f"{sys.argv[1]}: {name}: no smsp__inst_executed.sum")
        rows.append((v, r, c, w, num(d, "gpu__time_duration.sum") / 1e3, inst / r,
                     num(d, "smsp__issue_active.avg.pct_of_peak_sustained_active"),
                     num(d, "smsp__warps_active.avg.per_cycle_active"),
                     [num(d, f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio") for s in STALLS]))
    if not rows:
        fail(f"{sys.argv[1]}: no softmax_<variant>_r<rows>c<cols>_w<warps> launch")
    rows.sort()
    print("%-7s %7s %6s %2s %8s %9s %7s %8s  %s" % ("variant", "rows", "cols", "W", "us", "inst/row", "issue%",
                                                   "warps/sch", " ".join(s[:8] for s in STALLS)))
    for v, r, c, w, t, ipr, ia, wa, st in rows:
        print("%-7s %7d %6d %2d %8.1f %9.1f %7.1f %8.2f  %s" % (v, r, c, w, t, ipr, ia, wa,
                                                              " ".join("%8.2f" % x for x in st)))
    print("highest issue share of active cycles: %.1f%%" % max(x[6] for x in rows))
    for variant in sorted({x[0] for x in rows}):
        pts = [(x[3], x[2] / 256.0, x[5]) for x in rows if x[0] == variant]
        a = [[sum(p[i] * p[j] for p in pts) for j in range(2)] for i in range(2)]
        b = [sum(p[i] * p[2] for p in pts) for i in range(2)]
        f, s = solve(a, b)
        worst = max(abs(f * w + s * k - i) / i for w, k, i in pts)
        print("%s: warp-instructions per row = %.1f x warps + %.1f x columns / 256 (worst launch %.1f%% off)"
              % (variant, f, s, 100 * worst))


if __name__ == "__main__":
    main()
