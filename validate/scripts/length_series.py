#!/usr/bin/env python3
"""Per-iteration and per-block cost of the length series, measured against predicted.

Reads the JSON report of `tilescope validate --measurements LENGTH.jsonl --split all --format
json` (LENGTH.jsonl from validate/scripts/length_series.sh: one-wave grids whose only change is
the number of K/V or k-iterations n) and prints, per tile, the predicted/measured time at each n
and a least-squares line time = F + I x n over n >= 4 for both: I is what one more iteration of
the whole wave costs, F what the launch costs besides its iterations (launch, prologue,
epilogue, one pipeline fill).

    validate/scripts/length_series.py REPORT.json
"""
import json
import re
import sys
from collections import defaultdict

if len(sys.argv) != 2:
    sys.exit(__doc__)


def line(points):
    """Least-squares intercept and slope of (x, y) points."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx
    return my - slope * mx, slope


tiles = defaultdict(list)
for case in json.load(open(sys.argv[1]))["cases"]:
    name = case["case"]
    f2 = re.search(r"^attention-flash2/.*/nkv(\d+)/d(\d+)/c0\|t(\d+)x(\d+)x0", name)
    gemm = re.search(r"^gemm/.*/k(\d+)/r\w+/p0\|t(\d+)x(\d+)x(\d+)", name)
    if f2:
        nkv, d, br, bc = map(int, f2.groups())
        key, n = "flash2 d%d %dx%d" % (d, br, bc), nkv // bc
    elif gemm:
        k, tm, tn, tk = map(int, gemm.groups())
        key, n = "gemm %dx%d" % (tm, tn), k // tk
    else:
        sys.exit("length_series.py: %s is not a case of the length series" % name)
    tiles[key].append((n, case["measured"]["time"] / 1e3, case["predicted"]["time"] / 1e3))

print("%-20s %-47s %-26s %s" % ("tile", "predicted / measured at n = 1, 2, 4, ...", "measured F (us), I (ns)",
                                "predicted F, I"))
for key in sorted(tiles):
    rows = sorted(tiles[key])
    long_rows = [r for r in rows if r[0] >= 4]
    if len({n for n, _, _ in long_rows}) < 2:
        sys.exit("length_series.py: %s has fewer than two lengths of 4 or more iterations" % key)
    fm, im = line([(n, m) for n, m, _ in long_rows])
    fp, ip = line([(n, p) for n, _, p in long_rows])
    ratios = " ".join("%.2f" % (p / m) for _, m, p in rows)
    print("%-20s %-47s %6.2f %6.0f            %6.2f %6.0f  (I x %.2f)" % (key, ratios, fm, im * 1e3, fp, ip * 1e3,
                                                                     ip / im))
