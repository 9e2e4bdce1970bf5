#!/usr/bin/env python3
"""Table and store-time law of tilescope-qk-timeline-probe's output (docs/validation change 60).

Usage: qk_timeline_summary.py TIMELINE.jsonl
Prints one Markdown row per grid (head dimension, tile, blocks per SM, times, the medians of a
block's pre-store part, its epilogue and the slot gap, blocks running at a start, starts together)
and the least-squares line of the epilogue against the KiB a block stores (the scores of a TM x TN
fp16 tile): the per-byte store time that calibration.fragment_store_hold_ns_per_byte takes.
Exit 2 with a one-line error when the file is missing, unreadable or has no grid.
"""
import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: qk_timeline_summary.py TIMELINE.jsonl")
    path = sys.argv[1]
    rows = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    d = json.loads(line)
                except json.JSONDecodeError as e:
                    print(f"qk_timeline_summary.py: {path}:{n}: not JSON ({e.msg})", file=sys.stderr)
                    sys.exit(2)
                if d.get("probe") == "qk_timeline":
                    rows.append(d)
    except OSError as e:
        print(f"qk_timeline_summary.py: cannot read {path}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    if not rows:
        print(f"qk_timeline_summary.py: {path}: no qk_timeline grid", file=sys.stderr)
        sys.exit(2)
    print("| d | tile | blocks/SM | ms (plain) | ms (recording) | pre-store us | epilogue us | block us "
          "| slot gap us, median (p10-p90) | running at a start | starts together |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    xs, ys = [], []
    for d in sorted(rows, key=lambda r: (r["tile_m"] * r["tile_n"], r["tile_m"], r["head_dim"])):
        print("| %d | %dx%d | %d | %.3f | %.3f | %.2f | %.2f | %.2f | %.2f (%.2f-%.2f) | %.2f | %.0f%% |" % (
            d["head_dim"], d["tile_m"], d["tile_n"], d["blocks_per_sm"], d["ms_plain"], d["ms_recording"],
            d["pre_us_median"], d["epilogue_us_median"], d["block_us_median"], d["slot_gap_us_median"],
            d["slot_gap_us_p10"], d["slot_gap_us_p90"], d["running_at_start_mean"],
            100 * d["starts_together_share"]))
        xs.append(d["tile_m"] * d["tile_n"] * 2 / 1024.0)  # KiB of fp16 scores a block stores
        ys.append(d["epilogue_us_median"] * 1000.0)        # ns
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0
    icpt = my - slope * mx
    worst = max(abs(y - (icpt + slope * x)) for x, y in zip(xs, ys))
    print()
    print("epilogue = %.0f ns + %.1f ns per KiB stored (%.4f ns per byte); worst residual %.0f ns over %d grids" % (
        icpt, slope, slope / 1024.0, worst, n))


if __name__ == "__main__":
    main()
