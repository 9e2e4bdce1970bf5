#!/usr/bin/env python3
"""Table of tilescope-softmax-reuse-probe's run (docs/validation change 90), and the model beside it.

Usage: softmax_reuse_summary.py DIR [--model WHATIF.jsonl]
DIR holds times.jsonl (the timed run) and ncu.csv (the --profile run under Nsight Compute: the
probe's lines and one row of counters per grid, in launch order), as bench/scripts/
softmax_reuse_probe.sh writes them. Prints one Markdown row per grid: blocks per SM, rows in
flight (MB), the timed run's µs, and from the counters: the share of the re-reads that came from
DRAM ((DRAM read - input) / (input x re-reads); online re-reads its rows once, safe twice), the
L1's hit share of the global-load sectors, the L2's hit share of the read sectors the SMs sent
it, and the DRAM writes / output. With --model (softmax_reuse_whatif's output for the same
grids), the model's re-read share, L1 share and µs too.
Exit 2 with a one-line error when a file is missing or unreadable, or the probe's grids and the
counter rows do not pair up.
"""
import json
import sys

from issue_probe_summary import parse as ncu_raw_page
from probe_records import take_option


COUNTERS = ("dram__bytes_read.sum", "dram__bytes_write.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
            "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum")


def fail(msg):
    print(f"softmax_reuse_summary.py: {msg}", file=sys.stderr)
    sys.exit(2)


def probe_lines(lines):
    out = []
    for l in lines:
        if l.startswith("{") and '"softmax_reuse"' in l:
            out.append(json.loads(l))
    return out


def main():
    args = sys.argv[1:]
    model = take_option(args, "--model", fail)
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    d = args[0].rstrip("/")
    try:
        timed = probe_lines(open(f"{d}/times.jsonl"))
        lines = open(f"{d}/ncu.csv").read().splitlines()
        prof = probe_lines(lines)
        rows = ncu_raw_page("\n".join(lines))
        sim = {}
        if model:
            for l in open(model):
                if l.startswith("{"):
                    m = json.loads(l)
                    sim[m["grid"]] = m
    except (OSError, ValueError, KeyError) as e:
        fail(str(e))
    if len(prof) != len(rows):
        fail(f"{d}/ncu.csv: {len(prof)} probe grids but {len(rows)} Nsight Compute rows")
    ms = {g["grid"]: g["ms"] for g in timed}
    hdr = "| grid | blocks/SM | rows in flight (MB) | µs | re-read from DRAM | L1 hit | L2 read hit | writes / output |"
    sep = "|---|---|---|---|---|---|---|---|"
    if model:
        hdr += " model: re-read from DRAM | model: L1 hit | model: µs |"
        sep += "---|---|---|"
    print(hdr)
    print(sep)
    for g, c in zip(prof, rows):
        size = 2.0 * g["rows"] * g["cols"]
        rereads = 1 if g["variant"] == "online" else 2
        try:
            c = {k: float(c[k].replace(",", "")) for k in COUNTERS}
            dram = (c["dram__bytes_read.sum"] - size) / (rereads * size)
            ld = c["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
            l1 = c["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"] / ld if ld else 0.0
            rd = c["lts__t_sectors_srcunit_tex_op_read.sum"]
            l2 = c["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] / rd if rd else 0.0
            wr = c["dram__bytes_write.sum"] / size
        except (KeyError, ValueError) as e:
            fail(f"{d}/ncu.csv: counter {e} missing or not a number for grid {g['grid']}")
        row = (f"| {g['grid']} | {g['blocks_per_sm']} | {g['rows_in_flight_mb']:.1f} | "
               f"{1000 * ms.get(g['grid'], float('nan')):.1f} | {dram:.3f} | {l1:.3f} | {l2:.3f} | {wr:.3f} |")
        if model:
            m = sim.get(g["grid"])
            if m is None:
                fail(f"{model}: no grid {g['grid']}")
            # The model's L1 hits are bytes of the re-reads (the first read always misses).
            row += (f" {(m['dram_read'] - size) / (rereads * size):.3f} | "
                    f"{m['l1_hit_bytes'] / ((rereads + 1) * size):.3f} | {m['time_ns'] / 1000:.1f} |")
        print(row)


if __name__ == "__main__":
    main()
