#!/usr/bin/env python3
"""What would a perfect model of L2 request coalescing do to the L2-byte error?

Reads the LRC counters of every flash2 and GEMM case (bench/results/h100_lrc_coalescing.jsonl,
from bench/scripts/lrc_sweep.sh) and the per-case JSON of `tilescope validate`, subtracts from
each prediction the bytes the LRC merged on the H100 (achieved sectors x 32 B), and prints the
lts__t_bytes MAPE per family and split before and after, and the merged share per tile and N.
"""
import json
import re
import statistics
import sys
from collections import defaultdict

if len(sys.argv) != 3:
    sys.exit("usage: lrc_what_if.py LRC.jsonl VALIDATE.json\n"
             "  LRC.jsonl: bench/results/h100_lrc_coalescing.jsonl (bench/scripts/lrc_sweep.sh)\n"
             "  VALIDATE.json: tilescope validate --gpu calibrated/h100-sxm --measurements "
             "profiles/validation/h100-sxm-dataset.jsonl --predictions "
             "profiles/validation/h100-sxm-predictions.jsonl --split all --format json")
lrc_path, val_path = sys.argv[1], sys.argv[2]


def flag(flags, name):
    m = re.search(r"--%s (\S+)" % name, flags)
    return m.group(1) if m else None


def case_key(flags):
    """The validate case name of a tilescope-kernel-bench flag line (fp16, row raster, not persistent)."""
    g = lambda n: int(flag(flags, n))
    if flag(flags, "kernel") == "gemm":
        return "gemm/fp16/m%d/n%d/k%d/rrow/p0|t%dx%dx%d/s%d/w%d" % (
            g("m"), g("n"), g("k"), g("tile-m"), g("tile-n"), g("tile-k"), g("stages"), g("warps"))
    n = g("seq")
    return "attention-flash2/fp16/b%d/h%d/n%d/nkv%d/d%d/c0|t%dx%dx0/s2/w%d" % (
        g("batch"), g("heads"), n, n, g("head-dim"), g("tile-m"), g("tile-n"), g("warps"))


merged = {}
share = {}
for line in open(lrc_path):
    r = json.loads(line)
    m = r["metrics"]
    key = case_key(r["flags"])
    merged[key] = 32.0 * m["lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum"]
    share[key] = m["lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum"] / m[
        "lrc__request_sectors_op_read_coalescable.sum"]

cases = [(c["case"], c["family"], c["split"], c["predicted"]["lts_bytes"], c["measured"]["lts_bytes"])
         for c in json.load(open(val_path))["cases"]]
missing = [k for k in merged if k not in {c[0] for c in cases}]
if missing:
    sys.exit("lrc_what_if.py: %d LRC cases are not in the validation JSON, e.g. %s" % (len(missing), missing[0]))

by = defaultdict(lambda: ([], []))
for name, fam, split, p, m in cases:
    if m <= 0:
        continue
    before, after = by[(fam, split)]
    before.append(abs(p - m) / m)
    after.append(abs(p - merged.get(name, 0.0) - m) / m)
    all_b, all_a = by[("all", split)]
    all_b.append(abs(p - m) / m)
    all_a.append(abs(p - merged.get(name, 0.0) - m) / m)
print("lts__t_bytes MAPE, as predicted -> minus the bytes the LRC merged on the H100")
for (fam, split), (b, a) in sorted(by.items()):
    print("  %-18s %-8s %4d cases  %6.2f%% -> %6.2f%%" % (fam, split, len(b), 100 * statistics.mean(b),
                                                      100 * statistics.mean(a)))
print("merged share of the read sectors the SMs request (flash2: d, tile, warps by N):")
table = defaultdict(dict)
for key, s in share.items():
    m = re.search(r"n(\d+)/nkv\d+/d(\d+)/c0\|t(\d+)x(\d+)x0/s2/w(\d+)", key)
    if m:
        n, d, br, bc, w = map(int, m.groups())
        table[(d, br, bc, w)][n] = s
ns = sorted({n for row in table.values() for n in row})
print("  d    tile       " + " ".join("%7d" % n for n in ns))
for k in sorted(table):
    print("  %-4d %3dx%-3d w%d " % k + " ".join("%7.3f" % table[k].get(n, float("nan")) for n in ns))
gemm = sorted((s, k) for k, s in share.items() if k.startswith("gemm"))
print("GEMM: merged share %.3f-%.3f over %d cases" % (gemm[0][0], gemm[-1][0], len(gemm)))
