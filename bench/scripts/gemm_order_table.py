#!/usr/bin/env python3
"""The GEMM loop-order table of docs/validation change 55.

Joins tilescope-gemm-order-probe's runs (the median over the runs of each configuration's
"gemm_order_iteration" costs) with gemm_order_whatif's predictions, and prints a Markdown table:
measured and predicted ns per iteration for the wait-then-issue (the GEMM kernel's) and
issue-then-wait (FlashAttention-2's) orders, each prediction with its ratio to measured. The
table is of layout nn (B row-major, the gemm family's; runs without a layout are nn). Where the
runs also hold layout nt (B stored N x K, naive attention's QK^T), a second table gives its
measured costs against nn's (the simulator's gemm workload is nn, so nt has no prediction).

Usage: gemm_order_table.py --whatif KEPT.jsonl [--whatif36 ON.jsonl] PROBE.jsonl [PROBE.jsonl ...]
"""
import argparse
import json
import statistics
import sys


def key(o):
    return (o["tile_m"], o["tile_n"], o["stages"], o["blocks"])


def layout(o):
    return o.get("layout", "nn")


def read_jsonl(path, probe=None):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                o = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"gemm_order_table.py: {path}:{n}: not JSON ({e.msg})")
            if probe is None or o.get("probe") == probe:
                rows.append(o)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--whatif", required=True, help="gemm_order_whatif output (the profile as it is)")
    ap.add_argument("--whatif36", help="gemm_order_whatif --wait-then-issue 1 output (optional column)")
    ap.add_argument("probe", nargs="+", help="tilescope-gemm-order-probe outputs (one per run)")
    a = ap.parse_args()
    runs, runs_nt = {}, {}
    for p in a.probe:
        for o in read_jsonl(p, "gemm_order_iteration"):
            (runs if layout(o) == "nn" else runs_nt).setdefault(key(o), []).append(o)
    if not runs:
        sys.exit("gemm_order_table.py: no gemm_order_iteration lines in the probe files")
    model = {key(o): o for o in read_jsonl(a.whatif)}
    model36 = {key(o): o for o in read_jsonl(a.whatif36)} if a.whatif36 else {}
    sms = min(k[3] for k in runs)
    head = "| tile | stages | blocks per SM | runs | measured wait-first | measured issue-first | issue/wait | model wait-first | model issue-first |"
    rule = "|---|---|---|---|---|---|---|---|---|"
    if model36:
        head += " model wait-first, change 36 on |"
        rule += "---|"
    print(head)
    print(rule)
    for k in sorted(runs, key=lambda k: (k[2], k[3], k[0], k[1])):
        if k not in model:
            sys.exit(f"gemm_order_table.py: no prediction for tile {k[0]}x{k[1]} stages {k[2]} blocks {k[3]}")
        wf = statistics.median(o["wait_first_ns"] for o in runs[k])
        isf = statistics.median(o["issue_first_ns"] for o in runs[k])
        m = model[k]
        row = (f"| {k[0]}×{k[1]} | {k[2]} | {k[3] // sms} | {len(runs[k])} | {wf:.0f} | {isf:.0f} | {isf / wf:.3f} | "
               f"{m['wait_first_ns']:.0f} ({m['wait_first_ns'] / wf:.2f}) | {m['issue_first_ns']:.0f} ({m['issue_first_ns'] / isf:.2f}) |")
        if model36:
            m36 = model36[k]["wait_first_ns"]
            row += f" {m36:.0f} ({m36 / wf:.2f}) |"
        print(row)
    if runs_nt:
        print()
        print("| tile | stages | blocks per SM | runs | nt wait-first | nt issue-first | nt/nn wait-first | nt/nn issue-first |")
        print("|---|---|---|---|---|---|---|---|")
        for k in sorted(runs_nt, key=lambda k: (k[2], k[3], k[0], k[1])):
            wf = statistics.median(o["wait_first_ns"] for o in runs_nt[k])
            isf = statistics.median(o["issue_first_ns"] for o in runs_nt[k])
            nn = runs.get(k)
            if not nn:
                sys.exit(f"gemm_order_table.py: layout nt tile {k[0]}x{k[1]} stages {k[2]} blocks {k[3]} has no nn run")
            nn_wf = statistics.median(o["wait_first_ns"] for o in nn)
            nn_if = statistics.median(o["issue_first_ns"] for o in nn)
            print(f"| {k[0]}×{k[1]} | {k[2]} | {k[3] // sms} | {len(runs_nt[k])} | {wf:.0f} | {isf:.0f} | "
                  f"{wf / nn_wf:.3f} | {isf / nn_if:.3f} |")


if __name__ == "__main__":
    main()
