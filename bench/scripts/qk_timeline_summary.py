#!/usr/bin/env python3
"""Table and store-time law of tilescope-qk-timeline-probe's output (docs/validation changes 60-61).

Usage: qk_timeline_summary.py TIMELINE.jsonl
Prints one Markdown row per grid with its scores stored as the tool stores them ("stores": "dram",
or no such field: change 60's file) (head dimension, tile, blocks per SM, times, the medians of a
block's pre-store part, its epilogue and the slot gap, blocks running at a start, starts together)
and the least-squares line of the epilogue against the KiB a block stores (the scores of a TM x TN
fp16 tile): the per-byte store time that calibration.fragment_store_hold_ns_per_byte takes.
When the file also holds each grid with its scores held by the L2 ("l2") and with no stores
("none", change 61), a second table compares them: the launch's time each way; how much the
stores lengthen a block's pre-store part (its K loop) against the store time of the SM's other
blocks that overlaps it if the blocks are out of step ((per SM - 1) x epilogue x pre-store /
(block + slot gap)); and what the stores cost the SM per stored byte (the time per block and slot
with and without stores, over the blocks per SM). The share of the overlapping store time that
the K loop stands still is what calibration.fragment_store_load_wait takes.
Exit 2 with a one-line error when the file is missing, unreadable or has no grid.
"""
import sys

from probe_records import records


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: qk_timeline_summary.py TIMELINE.jsonl")
    path = sys.argv[1]
    rows = records(path, "qk_timeline_summary.py", "probe", "qk_timeline", "qk_timeline grid")
    for d in rows:
        d.setdefault("stores", "dram")
    ways = {(r["head_dim"], r["tile_m"], r["tile_n"], r["stores"]): r for r in rows}
    rows = [r for r in rows if r["stores"] == "dram"]
    if not rows:
        print(f"qk_timeline_summary.py: {path}: no grid with its scores stored to DRAM", file=sys.stderr)
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
    both = [r for r in rows if (r["head_dim"], r["tile_m"], r["tile_n"], "none") in ways
            and (r["head_dim"], r["tile_m"], r["tile_n"], "l2") in ways]
    if not both:
        return
    print()
    print("| d | tile | blocks/SM | ms: DRAM / L2 / no stores | pre-store us: stores / none | K loop longer by us "
          "| others' overlapping store us | share | SM cost ns per stored byte |")
    print("|---|---|---|---|---|---|---|---|---|")
    shares, l2_ratio, cost = {}, [], {}
    for r in sorted(both, key=lambda r: (r["blocks_per_sm"], r["head_dim"], r["tile_m"] * r["tile_n"], r["tile_m"])):
        key = (r["head_dim"], r["tile_m"], r["tile_n"])
        l2, none = ways[key + ("l2",)], ways[key + ("none",)]
        k = r["blocks_per_sm"]
        cycle = r["block_us_median"] + r["slot_gap_us_median"]
        longer = r["pre_us_median"] - none["pre_us_median"]
        others = (k - 1) * r["epilogue_us_median"] * r["pre_us_median"] / cycle
        share = longer / others if others > 0 else 0.0
        stored = r["tile_m"] * r["tile_n"] * 2
        per_byte = (cycle - none["block_us_median"] - none["slot_gap_us_median"]) / k * 1000.0 / stored
        shares.setdefault(k, []).append(share)
        cost.setdefault(k, []).append(per_byte)
        l2_ratio.append(l2["ms_plain"] / r["ms_plain"])
        print("| %d | %dx%d | %d | %.3f / %.3f / %.3f | %.2f / %.2f | %.2f | %.2f | %.2f | %.4f |" % (
            r["head_dim"], r["tile_m"], r["tile_n"], k, r["ms_plain"], l2["ms_plain"], none["ms_plain"],
            r["pre_us_median"], none["pre_us_median"], longer, others, share, per_byte))
    print()
    print("scores held by the L2: %.2f-%.2f of the time with them stored to DRAM, over %d grids" % (
        min(l2_ratio), max(l2_ratio), len(l2_ratio)))
    for k in sorted(shares):
        print("%d blocks per SM: the K loop stands still %.2f-%.2f of the overlapping store time; "
              "the stores cost the SM %.4f-%.4f ns per stored byte (%d grids)" % (
                  k, min(shares[k]), max(shares[k]), min(cost[k]), max(cost[k]), len(shares[k])))


if __name__ == "__main__":
    main()
