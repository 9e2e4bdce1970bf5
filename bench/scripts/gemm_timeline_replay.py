#!/usr/bin/env python3
"""The GEMM grids of tilescope-qk-timeline-probe (docs/validation change 87) against the simulator.

Usage: gemm_timeline_replay.py TILESCOPE TIMELINE.jsonl PROFILE [PROFILE ...]
For every "gemm_timeline" grid stored to DRAM ("stores": "dram") it runs `TILESCOPE trace` on the
same GEMM (m, n, k, tile, tile_k 32, 3 stages, 8 warps, row raster) with each profile (a bundled
name or a JSON path) and prints one Markdown row: measured launch ms (the probe's plain runs) and
median block length in us (entry to last store), then the model's two per profile. The model's
block length is its span (slot dispatch to retirement) less the profile's block_overhead_ns, as
bench/qk_store_replay.cpp takes it. A second table splits each tile's block length into a fixed
part and a time per K step: the least-squares line over the grid's K steps (k / 32), measured and
per profile.
Exit 2 with a one-line error on bad arguments, a missing or unreadable file, or no such grid;
exit 1 when a trace fails.
"""
import json
import os
import subprocess
import sys

from probe_records import line, records

SCRIPT = "gemm_timeline_replay.py"


def profile_overhead_ns(profile):
    # The model's block spans include the block overhead, which the trace does not print: read it
    # from the profile (a path, or a bundled name under TILESCOPE_PROFILE_DIR or the repo's profiles/).
    path = profile if profile.endswith(".json") else None
    if path is None:
        root = os.environ.get("TILESCOPE_PROFILE_DIR") or os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "..", "..", "profiles")
        path = os.path.join(root, profile + ".json")
    try:
        with open(path) as f:
            return float(json.load(f).get("calibration", {}).get("block_overhead_ns", 0.0))
    except (OSError, ValueError) as e:
        print(f"{SCRIPT}: cannot read profile {path}: {e}", file=sys.stderr)
        sys.exit(2)


def model(tilescope, grid, profile, overhead_ns):
    cmd = [tilescope, "trace", "--kernel", "gemm", "--m", str(grid["m"]), "--n", str(grid["n"]), "--k",
           str(grid["k"]), "--tile-m", str(grid["tile_m"]), "--tile-n", str(grid["tile_n"]), "--tile-k", "32",
           "--stages", "3", "--warps", "8", "--raster", "row", "--gpu", profile, "--out", "-"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"{SCRIPT}: {' '.join(cmd)}: {r.stderr.strip()}", file=sys.stderr)
        sys.exit(1)
    ev = json.loads(r.stdout)["traceEvents"]
    launch = [e["dur"] for e in ev if e.get("ph") == "X" and e.get("cat") == "launch"]
    blocks = sorted(e["dur"] for e in ev if e.get("ph") == "X" and e.get("cat") == "gemm")
    h = len(blocks) // 2
    med = blocks[h] if len(blocks) % 2 else 0.5 * (blocks[h - 1] + blocks[h])
    return sum(launch) / 1000.0, med - overhead_ns / 1000.0


def main():
    if len(sys.argv) < 4:
        sys.exit(f"usage: {SCRIPT} TILESCOPE TIMELINE.jsonl PROFILE [PROFILE ...]")
    tilescope, path, profiles = sys.argv[1], sys.argv[2], sys.argv[3:]
    grids = [g for g in records(path, SCRIPT, "probe", "gemm_timeline", "gemm_timeline grid")
             if g.get("stores") == "dram"]
    if not grids:
        print(f"{SCRIPT}: {path}: no gemm_timeline grid stored to DRAM", file=sys.stderr)
        sys.exit(2)
    overheads = [profile_overhead_ns(p) for p in profiles]
    fits = {}
    print("| shape | tile | blocks/SM | measured ms / block us | " + " | ".join(profiles) + " |")
    print("|---|---|---|---|" + "---|" * len(profiles))
    for g in sorted(grids, key=lambda g: (g["tile_m"] * g["tile_n"], g["tile_m"], g["k"])):
        tile = (g["tile_m"], g["tile_n"])
        steps = g["k"] / 32.0
        fits.setdefault(tile, [[] for _ in range(len(profiles) + 1)])[0].append((steps, g["block_us_median"]))
        cells = []
        for i, (p, o) in enumerate(zip(profiles, overheads)):
            ms, us = model(tilescope, g, p, o)
            fits[tile][i + 1].append((steps, us))
            cells.append(f"{ms:.4f} / {us:.2f}")
        print(f"| m{g['m']} n{g['n']} k{g['k']} | {g['tile_m']}x{g['tile_n']} | {g['blocks_per_sm']} | "
              f"{g['ms_plain']:.4f} / {g['block_us_median']:.2f} | " + " | ".join(cells) + " |")
    print()
    print("| tile | measured: fixed us + us per K step | " + " | ".join(profiles) + " |")
    print("|---|---|" + "---|" * len(profiles))
    for tile, series in fits.items():
        cells = []
        for pts in series:
            if len({x for x, _ in pts}) < 2:
                cells.append("n/a (one K)")
                continue
            a, b = line(pts)
            cells.append(f"{a:.2f} + {b:.3f}")
        print(f"| {tile[0]}x{tile[1]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
