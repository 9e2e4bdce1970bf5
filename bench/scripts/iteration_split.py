#!/usr/bin/env python3
"""Splits a fused-attention tile's time into a per-iteration and a fixed part, measured and predicted.

    bench/scripts/iteration_split.py REPORT.json [--family attention-flash2] [--split train]

REPORT.json is a `tilescope validate --format json` report. The data set keeps 16k tokens per
batch and, at one head dimension, the same heads, so every sequence length N of one tile runs the
same number of blocks (batch x heads x N / Br); only the K/V iterations a block runs, N / Bc,
change. For each (head dimension, tile) with cases at two or more N in the chosen split, the
script fits time = F + I x (N / Bc) by least squares, once to the measured times and once to the
predicted ones, and prints both, the ratio of the predicted to the measured I (the model's cost
of one K/V iteration of the whole launch against the GPU's) and each case's predicted / measured
time. A ratio below 1 at every N says the model's loop is too cheap, not its prologue or epilogue.

Only the chosen split's cases are read (the training half by default; pass --split heldout only to
report, never to choose a model). Non-causal, self-attention cases only (N = N_kv). Pure Python.
Exit 2 with a one-line error when the report cannot be read or has no such cases.
"""
import argparse
import json
import re
import sys

CASE = re.compile(r"^(?P<fam>[^/]+)/(?P<dtype>[^/]+)/b(?P<b>\d+)/h(?P<h>\d+)/n(?P<n>\d+)/nkv(?P<nkv>\d+)/"
                  r"d(?P<d>\d+)/c0\|t(?P<br>\d+)x(?P<bc>\d+)x")


def fail(msg):
    print("iteration_split: error: " + msg, file=sys.stderr)
    sys.exit(2)


def fit(points):
    """Least-squares line through (x, y) points: (intercept, slope)."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    sxy = sum((x - mx) * (y - my) for x, y in points)
    slope = sxy / sxx
    return my - slope * mx, slope


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report")
    ap.add_argument("--family", default="attention-flash2")
    ap.add_argument("--split", default="train", choices=["train", "heldout"])
    a = ap.parse_args()
    try:
        with open(a.report) as f:
            report = json.load(f)
        cases = report["cases"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{a.report}: not a validate JSON report ({e})")
    groups = {}
    for c in cases:
        if c.get("split") != a.split:
            continue
        m = CASE.match(c["case"])
        if not m or m["fam"] != a.family or m["n"] != m["nkv"]:
            continue
        key = (m["dtype"], int(m["d"]), int(m["br"]), int(m["bc"]))
        blocks = int(m["b"]) * int(m["h"]) * int(m["n"]) // int(m["br"])
        groups.setdefault(key, []).append((int(m["n"]), blocks, c["measured"]["time"], c["predicted"]["time"]))
    rows = []
    for (dtype, d, br, bc), pts in sorted(groups.items()):
        pts.sort()
        if len({n for n, *_ in pts}) < 2:
            continue
        if len({b for _, b, *_ in pts}) != 1:
            print(f"iteration_split: note: {dtype} d{d} {br}x{bc}: block counts differ across N; skipped",
                  file=sys.stderr)
            continue
        meas = fit([(n / bc, t) for n, _, t, _ in pts])
        pred = fit([(n / bc, p) for n, _, _, p in pts])
        rows.append((dtype, d, br, bc, pts, meas, pred))
    if not rows:
        fail(f"{a.report}: no {a.family} tile with cases at two or more N in the {a.split} split")
    print(f"{a.family}, {a.split} split: time = F + I x (N / Bc), fitted over the N of each tile "
          f"(F, I in microseconds of the whole launch)")
    print(f"{'dtype':5s} {'d':>4s} {'tile':>8s} {'blocks':>7s} | {'F meas':>8s} {'I meas':>8s} | "
          f"{'F model':>8s} {'I model':>8s} | {'I ratio':>7s} | predicted / measured at each N")
    for dtype, d, br, bc, pts, meas, pred in rows:
        per_n = "  ".join(f"N{n} {p / t:.3f}" for n, _, t, p in pts)
        print(f"{dtype:5s} {d:4d} {br:>4d}x{bc:<3d} {pts[0][1]:7d} | {meas[0] / 1e3:8.1f} {meas[1] / 1e3:8.2f} | "
              f"{pred[0] / 1e3:8.1f} {pred[1] / 1e3:8.2f} | {pred[1] / meas[1]:7.3f} | {per_n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
