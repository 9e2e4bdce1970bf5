#!/usr/bin/env python3
"""Table of bench/scripts/qk_store_probe.sh's Nsight Compute runs (naive attention's QK^T launch).

    bench/scripts/qk_store_probe_summary.py [bench/results/h200_qk_store_probe_2026-11-26.tgz]

Prints per tile: time, store instructions and L1/L2 store sectors and requests, L2 read sectors,
DRAM writes, instructions, issue-slot use, warps active, blocks per SM (from the registers), and
the score matrix's bytes per SM over the launch's time (GB/s per SM).
"""
import csv
import io
import sys
import tarfile

PATH = sys.argv[1] if len(sys.argv) > 1 else "bench/results/h200_qk_store_probe_2026-11-26.tgz"
SMS = 132  # H100 SXM and H200 both have 132 SMs


def rows(path):
    out = {}
    with tarfile.open(path) as t:
        for m in sorted(t.getmembers(), key=lambda m: m.name):
            if not m.name.endswith(".csv"):
                continue
            text = t.extractfile(m).read().decode()
            lines = text.splitlines()
            start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
            r = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
            out[m.name.split("/")[-1][:-4]] = dict(zip(r[0], r[2]))
    return out


def num(d, k):
    return float(d[k].replace(",", ""))


def main():
    data = rows(PATH)
    cols = [("time us", lambda d: num(d, "gpu__time_duration.sum") / 1e3),
            ("st instr M", lambda d: num(d, "smsp__inst_executed_op_global_st.sum") / 1e6),
            ("L1 st sect M", lambda d: num(d, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum") / 1e6),
            ("L2 wr req M", lambda d: num(d, "lts__t_requests_srcunit_tex_op_write.sum") / 1e6),
            ("L2 wr sect M", lambda d: num(d, "lts__t_sectors_srcunit_tex_op_write.sum") / 1e6),
            ("L2 rd sect M", lambda d: num(d, "lts__t_sectors_srcunit_tex_op_read.sum") / 1e6),
            ("DRAM wr MB", lambda d: num(d, "dram__bytes_write.sum") / 1e6),
            ("instr M", lambda d: num(d, "smsp__inst_executed.sum") / 1e6),
            ("issue %", lambda d: num(d, "smsp__issue_active.avg.pct_of_peak_sustained_active")),
            ("warps act %", lambda d: num(d, "sm__warps_active.avg.pct_of_peak_sustained_active")),
            ("blk/SM", lambda d: num(d, "launch__occupancy_limit_registers"))]
    print("%-26s" % "case" + "".join("%13s" % c for c, _ in cols) + "%16s" % "st GB/s per SM")
    for name, d in data.items():
        stored = num(d, "dram__bytes_write.sum")  # the score matrix, written once
        rate = stored / SMS / (num(d, "gpu__time_duration.sum"))  # bytes per ns per SM = GB/s
        print("%-26s" % name.replace("qk_", "") + "".join("%13.1f" % f(d) for _, f in cols) + "%16.2f" % rate)


if __name__ == "__main__":
    main()
