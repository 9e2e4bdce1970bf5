#!/usr/bin/env bash
# L2 request coalescing (LRC) of every flash2 and GEMM case of the H100 data set, read with
# Nsight Compute: how many of the sectors the SMs request the LRC merges before the L2
# (lrc__request_sectors_op_read_coalescing_achieved_type_hardware) against all coalescable ones,
# plus lts__t_bytes and its far-partition (ltcfabric) part. One JSON line per case.
# Staging as in l2_merge_probe.sh (carry ".deps/probe"). Usage: lrc_sweep.sh OUT [CASES]
# CASES: lines "kernel-regex|tilescope-kernel-bench run flags" (bench/scripts/lrc_cases.txt,
# made from profiles/validation/h100-sxm-dataset.jsonl).
set -u
OUT=${1:-/tmp/lrc}
CASES=${2:-bench/scripts/lrc_cases.txt}
mkdir -p "$OUT"
KB=.deps/probe/bin/tilescope-kernel-bench
export LD_LIBRARY_PATH=$PWD/.deps/probe/lib:${LD_LIBRARY_PATH:-}
M=lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lts__t_bytes.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__m_xbar2l1tex_read_sectors.sum
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader; ncu --version | tail -1; date -u +%FT%TZ; } > "$OUT/provenance.txt" 2>&1
: > "$OUT/lrc.jsonl"
while IFS='|' read -r re flags; do
  [ -z "$re" ] && continue
  log=$(ncu --csv --metrics "$M" --kernel-name "regex:$re" --launch-count 1 $KB run $flags --repeats 1 --warmup 0 --no-counters 2>&1)
  python3 - "$flags" "$log" >> "$OUT/lrc.jsonl" <<'PY'
import csv, io, json, sys
flags, log = sys.argv[1], sys.argv[2]
rows = [l for l in log.splitlines() if l.startswith('"')]
vals = {}
if rows:
    for r in csv.DictReader(io.StringIO("\n".join(rows))):
        v = r.get("Metric Value", "").replace(",", "")
        unit = r.get("Metric Unit", "")
        scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}.get(unit, 1)
        try: vals[r["Metric Name"]] = float(v) * scale
        except ValueError: pass
print(json.dumps({"flags": flags, "metrics": vals}))
PY
done < "$CASES"
wc -l "$OUT/lrc.jsonl"
