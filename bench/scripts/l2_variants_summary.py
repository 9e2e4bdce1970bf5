#!/usr/bin/env python3
"""Summarise `tilescope-l2-reuse-probe variants` under Nsight Compute (docs/validation changes 78-79).

    bench/scripts/l2_variants_summary.py NCU_CSV [--replay REPLAY_OUT]

NCU_CSV is the probe's stdout and Nsight Compute's CSV in one file (`ncu --csv ... probe variants
> NCU_CSV`), profiled with dram__bytes_read.sum and dram__bytes_write.sum either for
`second_read` alone (`--kernel-name regex:second_read`) or for every launch but the flush
(`--kernel-name regex:"^(first|second)"`). Prints, per pattern and size D (MiB), the share of the
re-read that came from DRAM and, when the first pass was profiled too, the bytes written back to
DRAM during the first pass and during the re-read (both / D), and the MiB left dirty after the
first pass (what it stored less what it wrote back). With --replay, the output of
`l2_probe_replay --writes --patterns read,copy,store_read,read_store,copy_half[,copy_frag,fstore_read]`
is put beside each row, and the rms difference of each column over D >= 16 MiB, per pattern and
over all, closes the table.
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from l2_reuse_summary import ncu_launches  # noqa: E402
from probe_records import take_option  # noqa: E402

MIB = 1 << 20
PATTERNS = ["read", "copy", "store_read", "read_store", "copy_half", "copy_frag", "fstore_read"]
# first-pass launches of each pattern (store_read and read_store run two)
FIRST_LAUNCHES = {"read": 1, "copy": 1, "store_read": 2, "read_store": 2, "copy_half": 1, "copy_frag": 1, "fstore_read": 2}
# the share of D each pattern's first pass stores (copy_half: every other 4 KiB segment)
STORED = {"read": 0.0, "copy": 1.0, "store_read": 1.0, "read_store": 1.0, "copy_half": 0.5, "copy_frag": 1.0, "fstore_read": 1.0}


def fail(msg):
    print(f"l2_variants_summary: {msg}", file=sys.stderr)
    sys.exit(2)


def read_lines(path):
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError as e:
        fail(f"{path}: {e.strerror}")


def measured(path):
    lines = read_lines(path)
    probe = [json.loads(l) for l in lines if '"l2_reuse"' in l]
    try:
        ls = ncu_launches(lines)
    except ValueError as e:
        fail(str(e))
    with_first = len(ls) > len(probe)
    res, i = {}, 0
    for p in probe:
        if p["pattern"] not in FIRST_LAUNCHES:
            fail(f"pattern {p['pattern']!r} is not one of the variants")
        first = []
        if with_first:
            first = ls[i:i + FIRST_LAUNCHES[p["pattern"]]]
            i += len(first)
        sec = ls[i]
        i += 1
        if "second_read" not in sec["kernel"]:
            fail(f"launch {i} is {sec['kernel']!r}, expected second_read ({p['pattern']} {p['mib']} MiB)")
        d = p["mib"] * MIB
        wb1 = sum(f["dram__bytes_write.sum"] for f in first) / d if with_first else None
        res[(p["pattern"], p["mib"])] = (sec["dram__bytes_read.sum"] / d, wb1, sec["dram__bytes_write.sum"] / d)
    if i != len(ls):
        fail(f"{len(ls)} profiled launches for {len(probe)} probe lines")
    return res, with_first


def replayed(path):
    res = {}
    for l in read_lines(path):
        f = l.split()
        if len(f) == 5 and f[0] in PATTERNS:
            res[(f[0], int(f[1]))] = tuple(float(x) for x in f[2:])
    if not res:
        fail(f"{path}: no replay rows (run l2_probe_replay with --writes and the five patterns)")
    return res


def main():
    args = sys.argv[1:]
    rep_path = take_option(args, "--replay", fail)
    rep = replayed(rep_path) if rep_path is not None else None
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    meas, with_first = measured(args[0])
    cols = "re-read from DRAM" + ("   written back: first pass, re-read   kept dirty (MiB)" if with_first else "")
    print(f"pattern     MiB  {cols}" + ("   | replay: re-read, first pass, re-read" if rep else ""))
    sq = {}
    for p in PATTERNS:
        for (q, mib), (rr, wb1, wb2) in sorted(meas.items(), key=lambda kv: kv[0][1]):
            if q != p:
                continue
            line = f"{p:<11}{mib:4d}  {rr:.3f}"
            if with_first:
                stored = STORED[p] * mib
                line += f"   {wb1:.3f}  {wb2:.3f}   " + (f"{stored - mib * wb1:6.1f}" if stored else "     -")
            if rep and (p, mib) in rep:
                r = rep[(p, mib)]
                line += f"   | {r[0]:.3f}  {r[1]:.3f}  {r[2]:.3f}"
                if mib >= 16:
                    for j, m in enumerate((rr, wb1, wb2)):
                        if m is not None:
                            sq.setdefault((p, j), []).append((r[j] - m) ** 2)
                            sq.setdefault(("all", j), []).append((r[j] - m) ** 2)
            print(line)
    if rep:
        print("rms, D >= 16 MiB: re-read, first-pass write-backs, re-read write-backs")
        for p in PATTERNS + ["all"]:
            vals = [math.sqrt(sum(sq[(p, j)]) / len(sq[(p, j)])) if (p, j) in sq else float("nan") for j in range(3)]
            print(f"  {p:<11} {vals[0]:.3f}  {vals[1]:.3f}  {vals[2]:.3f}")


if __name__ == "__main__":
    main()
