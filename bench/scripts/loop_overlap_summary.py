#!/usr/bin/env python3
"""Tables of tilescope-loop-overlap-probe's output (docs/validation change 63).

Usage: loop_overlap_summary.py PROBE.jsonl [REPLAY.jsonl ...]

PROBE.jsonl: the probe's JSON lines (kernels/tools/loop_overlap_probe.cu). Prints one Markdown row
per grid with at least one full round of blocks (blocks >= SMs x blocks per SM; the one-wave
m = n = k = 1024 GEMMs are left out: their fixed costs are most of their time): the time per
iteration of one SM's resident blocks (kernel time / (rounds x k-tiles), rounds = blocks / (SMs x
blocks per SM) rounded up) whole, loads only and compute only, whole / (loads + compute), and the
overlap (loads + compute - whole) / min(loads, compute): 1 when the shorter part hides under the
longer, 0 when they add, below 0 when the whole takes longer than both parts. Then a line with
the range of whole / (loads + compute).

REPLAY.jsonl (optional, any number): bench/loop_overlap_replay.cpp's output on the same probe
file (under some profile); for each, one line: the geometric mean and range of predicted /
measured time of each way over the same grids, and the range of the model's overlap.
Exit 2 on a missing or unreadable file, a line that is not JSON, or a file without rows.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_records import records  # noqa: E402

SCRIPT = "loop_overlap_summary.py"


def key(d):
    return (d["family"], d["m"], d["n"], d["k"], d["batch"], d["tile_m"], d["tile_n"], d["stages"])


def main(argv):
    if len(argv) < 2:
        print(f"usage: {SCRIPT} PROBE.jsonl [REPLAY.jsonl ...]", file=sys.stderr)
        return 2
    device = records(argv[1], SCRIPT, "probe", "device", "device line")[0]
    sms = device["sms"]
    rows = [d for d in records(argv[1], SCRIPT, "probe", "loop_overlap", "loop_overlap lines")
            if d["blocks"] >= sms * d["blocks_per_sm"]]
    if not rows:
        print(f"{SCRIPT}: {argv[1]}: no grid with a full round of blocks", file=sys.stderr)
        return 2
    print(f"{device['name']}, {sms} SMs: ns per iteration of an SM's resident blocks")
    print()
    print("| family | shape | tile | stages | blocks/SM | whole | loads | compute | whole / (loads + compute) | overlap |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for d in rows:
        rounds = math.ceil(d["blocks"] / (sms * d["blocks_per_sm"]))
        per = [d[k] * 1e6 / (rounds * d["k_tiles"]) for k in ("ms_full", "ms_loads", "ms_compute")]
        ratio = per[0] / (per[1] + per[2])
        ratios.append(ratio)
        shape = (f"N {d['m']}, d {d['head_dim']}, {d['batch']} slices" if d["family"] in ("pv", "flash2")
                 else f"{d['m']} x {d['n']} x {d['k']}")
        print(f"| {d['family']} | {shape} | {d['tile_m']}x{d['tile_n']} | {d['stages']} | {d['blocks_per_sm']} | "
              f"{per[0]:.0f} | {per[1]:.0f} | {per[2]:.0f} | {ratio:.2f} | {d['overlap']:.2f} |")
    print()
    print(f"whole / (loads + compute): {min(ratios):.2f}-{max(ratios):.2f} over {len(rows)} grids")
    wanted = {key(d) for d in rows}
    for path in argv[2:]:
        model = [d for d in records(path, SCRIPT, "model", "loop_overlap_replay", "loop_overlap_replay lines")
                 if key(d) in wanted]
        if not model:
            print(f"{SCRIPT}: {path}: none of the probe's grids", file=sys.stderr)
            return 2
        parts = []
        for way in ("full", "loads", "compute"):
            r = [d[f"ms_{way}_model"] / d[f"ms_{way}"] for d in model]
            g = math.exp(sum(math.log(x) for x in r) / len(r))
            parts.append(f"{way} {g:.2f} ({min(r):.2f}-{max(r):.2f})")
        ov = [d["overlap_model"] for d in model]
        print(f"{os.path.basename(path)} ({len(model)} grids), predicted / measured: {', '.join(parts)}; "
              f"model overlap {min(ov):.2f}-{max(ov):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
