#!/usr/bin/env python3
"""The queueing slope of L2 hits and of DRAM reads from tilescope-l2-hit-queue-probe (change 81).

Usage: l2_hit_queue_summary.py HITQ.jsonl

The probe times one wave of a cp.async copy loop (issue first, wait after) per source (an 8 MiB
L2-resident buffer, a 2 GiB one read from DRAM), stage count S, step width T and blocks per SM b,
and prints the rate X and Little's-law round trip L = bytes in flight / X. L is that round trip
only where the loop waits for its copies: a configuration whose loop is bound by something else
(the issue of its copies, its barrier) keeps its rate when more stages are in flight, and its L
then grows with the stages without meaning anything. So the line is fitted over the 2-stage
configurations whose 3-stage sibling (same T and b) runs at least 10% faster; the rest are listed
apart. Prints a Markdown table per source and the least-squares line L = L0 + c X with the
standard error of c: c is the quantity calibration.load_latency_ns_per_tbps (DRAM) and
calibration.load_latency_l2_hit_ns_per_tbps (hits) take. L0 holds the loop's own time per step
too, so it is not the memory's unloaded latency.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_records import records  # noqa: E402

LATENCY_BOUND_GAIN = 1.10  # the 3-stage sibling's rate over the 2-stage one's, at least


def fit(points):
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx
    icpt = my - slope * mx
    se = math.sqrt(sum((y - icpt - slope * x) ** 2 for x, y in points) / (n - 2) / sxx) if n > 2 else float("nan")
    return slope, icpt, se


def main():
    if len(sys.argv) != 2:
        print("usage: l2_hit_queue_summary.py HITQ.jsonl", file=sys.stderr)
        sys.exit(2)
    rows = records(sys.argv[1], "l2_hit_queue_summary", "probe", "l2_hit_queue", "l2_hit_queue lines (is it the probe's output?)")
    by_key = {(r["source"], r["stages"], r["step_bytes"], r["blocks_per_sm"]): r for r in rows}
    for source in ("l2", "dram"):
        used, other = [], []
        for (src, s, t, b), r in sorted(by_key.items(), key=lambda kv: kv[1]["tb_per_s"]):
            if src != source:
                continue
            sib = by_key.get((src, 3, t, b))
            bound = s == 2 and sib is not None and sib["tb_per_s"] >= LATENCY_BOUND_GAIN * r["tb_per_s"]
            (used if bound else other).append(r)
        if len(used) < 3:
            print(f"{source}: {len(used)} latency-bound configurations, too few for a line")
            continue
        slope, icpt, se = fit([(r["tb_per_s"], r["round_trip_ns"]) for r in used])
        print(f"### {source}: L = {icpt:.0f} ns + {slope:.1f} ns per TB/s (standard error {se:.1f}), "
              f"over {len(used)} latency-bound 2-stage configurations\n")
        print("| step bytes | blocks/SM | TB/s | round trip ns | line ns |")
        print("|---|---|---|---|---|")
        for r in used:
            print(f"| {r['step_bytes']} | {r['blocks_per_sm']} | {r['tb_per_s']:.3f} | {r['round_trip_ns']:.0f} | "
                  f"{icpt + slope * r['tb_per_s']:.0f} |")
        print(f"\nNot latency-bound (left out of the line): {len(other)} configurations, "
              f"{min(r['tb_per_s'] for r in other):.2f}-{max(r['tb_per_s'] for r in other):.2f} TB/s\n")


if __name__ == "__main__":
    main()
