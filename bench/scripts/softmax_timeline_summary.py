#!/usr/bin/env python3
"""Table of tilescope-softmax-timeline-probe's output, and the simulator's blocks beside it
(docs/validation change 72).

Usage: softmax_timeline_summary.py TIMELINE.jsonl [--model TILESCOPE PROFILE]
Prints one Markdown row per grid (variant, rows x cols, warps): the plain kernel's time; a pass's
time per step (median over blocks; a step is one 16-byte load per thread and its arithmetic), for
the first pass (the row comes from DRAM) and the later ones (it is re-read, mostly from the L1 or
the L2); the median length of a first-wave block (one that starts before its SM's first block
ends) and of a later block, and their ratio. Then summary lines: the first pass's time per step
by warps per block, and the range of first-wave / later over the grids.
With --model, each grid is also simulated (`TILESCOPE trace --gpu PROFILE`, the same workload)
and the row gains the model's time, its first-wave / later ratio, and its first-wave and later
block medians over the hardware's; a last line gives their ranges. The probe's first wave is
measured per SM, the model's is its trace's wave 0: both are the blocks that start with the
launch.
Exit 2 with a one-line error when the file is missing, unreadable or has no grid, or when a
simulation fails.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

from probe_records import records


def model_blocks(tilescope, profile, g, tmp):
    out = os.path.join(tmp, g["grid"] + ".json")
    cmd = [tilescope, "trace", "--gpu", profile, "--kernel", "softmax", "--variant", g["variant"],
           "--rows", str(g["rows"]), "--cols", str(g["cols"]), "--tile-m", "1",
           "--tile-n", str(256 * g["warps"]), "--warps", str(g["warps"]), "--stages", "1", "--out", out]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        print(f"softmax_timeline_summary.py: cannot run {tilescope}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    if r.returncode != 0:
        msg = (r.stderr.strip().splitlines() or ["no message"])[-1]
        print(f"softmax_timeline_summary.py: {g['grid']}: tilescope trace failed: {msg}", file=sys.stderr)
        sys.exit(2)
    with open(out) as f:
        ev = json.load(f)["traceEvents"]
    launch = [e for e in ev if e.get("cat") == "launch"][0]["dur"]
    blocks = [e for e in ev if e.get("cat") == "softmax"]
    first = [e["dur"] for e in blocks if e["args"]["wave"] == 0]
    later = [e["dur"] for e in blocks if e["args"]["wave"] > 0]
    return launch, statistics.median(first), statistics.median(later) if later else float("nan")


def span(v):
    return f"{min(v):.2f}-{max(v):.2f} (median {statistics.median(v):.2f})"


def main():
    args = sys.argv[1:]
    model = None
    if len(args) == 4 and args[1] == "--model":
        model = (args[2], args[3])
    elif len(args) != 1:
        sys.exit("usage: softmax_timeline_summary.py TIMELINE.jsonl [--model TILESCOPE PROFILE]")
    path = args[0]
    rows = records(path, "softmax_timeline_summary.py", "probe", "softmax_timeline", "softmax_timeline grid")
    rows.sort(key=lambda r: (r["variant"], r["cols"], r["warps"]))
    head = ("| variant | rows x cols | warps | us | pass 1 us/step | later passes us/step | first-wave block us "
            "| later block us | first / later |")
    rule = "|---|---|---|---|---|---|---|---|---|"
    if model:
        head += " model us | model first / later | model / hw, first wave | model / hw, later |"
        rule += "---|---|---|---|"
    print(head)
    print(rule)
    step1 = {}
    hw_ratio, m_ratio, m_first, m_later = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for g in rows:
            passes = 2 if g["variant"] == "online" else 3
            later_steps = [g[f"pass{p}_step_us_median"] for p in range(2, passes + 1)]
            first, later = g["first_wave_block_us_median"], g["later_block_us_median"]
            ratio = first / later
            hw_ratio.append(ratio)
            step1.setdefault(g["warps"], []).append(g["pass1_step_us_median"])
            line = (f"| {g['variant']} | {g['rows']} x {g['cols']} | {g['warps']} | {g['ms_plain'] * 1e3:.1f} "
                    f"| {g['pass1_step_us_median']:.2f} | {' / '.join(f'{s:.2f}' for s in later_steps)} "
                    f"| {first:.2f} | {later:.2f} | {ratio:.2f} |")
            if model:
                t, mf, ml = model_blocks(model[0], model[1], g, tmp)
                m_ratio.append(mf / ml)
                m_first.append(mf / first)
                m_later.append(ml / later)
                line += f" {t:.1f} | {mf / ml:.2f} | {mf / first:.2f} | {ml / later:.2f} |"
            print(line)
    print()
    print("pass 1 time per step (us), over the grids: " +
          "; ".join(f"{w} warp{'s' if w > 1 else ''} {span(v)}" for w, v in sorted(step1.items())))
    print(f"first-wave / later block, hardware: {span(hw_ratio)} over {len(rows)} grids")
    if model:
        print(f"first-wave / later block, model ({model[1]}): {span(m_ratio)}; model / hardware, first wave "
              f"{span(m_first)}, later {span(m_later)}")


if __name__ == "__main__":
    main()
