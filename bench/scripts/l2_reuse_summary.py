#!/usr/bin/env python3
"""Summarise tilescope-l2-reuse-probe runs under Nsight Compute (docs/validation change 30).

    bench/scripts/l2_reuse_summary.py DIR

DIR holds read_copy_times.jsonl + read_copy_ncu.csv (the probe without arguments: `second_read`
profiled) and store_times.jsonl + store_ncu.csv (`probe store`: `first_store` and `second_read`
profiled), as bench/results/h100_l2_reuse_probe_2026-11-25/ does. Prints, per size D, the share
of the re-read that came from DRAM (read and copy patterns), and for the store pattern the DRAM
writes of the store kernel and of the read that follows, and the dirty bytes the L2 kept
(D - written while storing). Ends with the mean kept for D >= 28 MiB and its share of the L2.
"""
import csv
import json
import sys

MIB = 1 << 20


def ncu_launches(lines):
    """Nsight Compute CSV rows (the lines that start with a quote) as one dict of metric values per
    launch, in launch order, with the launch's "kernel" name where the CSV has that column.
    Raises ValueError when there are no such rows or the header lacks a column."""
    rows = list(csv.reader([l for l in lines if l.startswith('"')]))
    if not rows:
        raise ValueError("no Nsight Compute rows in the file")
    hdr = rows[0]
    try:
        i_id, i_name, i_val = (hdr.index(h) for h in ("ID", "Metric Name", "Metric Value"))
    except ValueError as e:
        raise ValueError(f"not an Nsight Compute CSV header: {e}") from None
    i_k = hdr.index("Kernel Name") if "Kernel Name" in hdr else None
    out = {}
    for r in rows[1:]:
        d = out.setdefault(int(r[i_id]), {} if i_k is None else {"kernel": r[i_k]})
        d[r[i_name]] = float(r[i_val].replace(",", ""))
    return [out[k] for k in sorted(out)]


def ncu_rows(path):
    return ncu_launches(open(path))


def probe_rows(path):
    return [json.loads(l) for l in open(path) if '"l2_reuse"' in l]


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    d = sys.argv[1].rstrip("/")
    print("pattern  MiB  re-read from DRAM")
    for p, m in zip(probe_rows(f"{d}/read_copy_times.jsonl"), ncu_rows(f"{d}/read_copy_ncu.csv")):
        print(f"{p['pattern']:<7}{p['mib']:5d}  {m['dram__bytes_read.sum'] / (p['mib'] * MIB):.3f}")
    print("store  MiB  written while storing / D  written by the next read / D  kept dirty (MiB)")
    ncu = ncu_rows(f"{d}/store_ncu.csv")
    kept = []
    for i, p in enumerate(probe_rows(f"{d}/store_times.jsonl")):
        st, rd = ncu[2 * i], ncu[2 * i + 1]
        size = p["mib"] * MIB
        k = (size - st["dram__bytes_write.sum"]) / MIB
        if p["mib"] >= 28:
            kept.append(k)
        print(f"store{p['mib']:5d}  {st['dram__bytes_write.sum'] / size:.3f}  {rd['dram__bytes_write.sum'] / size:.3f}  {k:.2f}")
    mean = sum(kept) / len(kept)
    # The L2's size: the probe's device line (the CUDA attribute), else the H100's 50 MiB (the
    # first H100 runs of 2026-11-25 predate that line).
    l2_mib = 50.0
    for line in open(f"{d}/store_times.jsonl"):
        if '"probe":"device"' in line.replace(" ", ""):
            l2_mib = json.loads(line)["l2_bytes"] / MIB
            break
    print(f"kept dirty, D >= 28 MiB: mean {mean:.2f} MiB, min {min(kept):.2f}, max {max(kept):.2f}; "
          f"{mean / l2_mib:.3f} of the {l2_mib:g} MiB L2")


if __name__ == "__main__":
    main()
