#!/usr/bin/env bash
# Where do shared tiles' L2 requests go? Runs Nsight Compute on kernels whose blocks read the same
# tiles at about the same time (flash2, GEMM) and on one whose blocks share nothing (flash1), and
# reads the bytes the SMs request against the bytes and requests the L2 slices count
# (docs/validation/README.md, "L2 bytes of FlashAttention-2 and GEMM"). Device call:
#   stage: mkdir -p .deps/probe/{bin,lib}; copy build/release/bin/tilescope-kernel-bench there and
#          the libcudart/libcupti it links into .deps/probe/lib; carry ".deps/probe".
#   run:   bash bench/scripts/l2_merge_probe.sh "$OUT"
set -u
OUT=${1:-/tmp/l2probe}
mkdir -p "$OUT"
KB=.deps/probe/bin/tilescope-kernel-bench
export LD_LIBRARY_PATH=$PWD/.deps/probe/lib:${LD_LIBRARY_PATH:-}
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; ncu --version; date -u; } > "$OUT/provenance.txt" 2>&1
ncu --query-metrics --chip gh100 > "$OUT/gh100_metrics.txt" 2>&1
# Candidates; only those this ncu knows for GH100 are asked for (an unknown name fails the run).
CAND="lts__t_bytes lts__t_sectors lts__t_requests lts__t_sectors_op_read lts__t_requests_op_read
lts__t_sectors_srcunit_tex lts__t_sectors_srcunit_tex_op_read lts__t_requests_srcunit_tex_op_read
lts__t_sectors_srcunit_ltcfabric lts__t_sectors_srcunit_tex_lookup_hit lts__t_sectors_srcunit_tex_lookup_miss
lts__t_sectors_srcnode_gpc lts__t_requests_srcnode_gpc lts__t_sectors_srcunit_tex_op_write
l1tex__m_xbar2l1tex_read_bytes l1tex__m_xbar2l1tex_read_sectors l1tex__m_l1tex2xbar_req
l1tex__m_l1tex2xbar_write_bytes smsp__inst_executed_op_ldgsts sm__sass_data_bytes_mem_global
sm__sass_data_bytes_mem_global_op_ldgsts dram__bytes_read gpu__time_duration"
METRICS=""
for m in $CAND; do
  if grep -qE "^[[:space:]]*$m[[:space:]]" "$OUT/gh100_metrics.txt"; then METRICS="$METRICS,$m.sum"; fi
done
for m in $(grep -oE "^[[:space:]]*lrc__[a-z0-9_]+" "$OUT/gh100_metrics.txt" | tr -d ' ' | sort -u); do METRICS="$METRICS,$m.sum"; done
METRICS=${METRICS#,}
echo "$METRICS" > "$OUT/metrics_asked.txt"
run() {  # name, kernel regex, workload flags
  local name=$1 re=$2; shift 2
  ncu --metrics "$METRICS" --kernel-name "regex:$re" --launch-count 1 $KB run "$@" --repeats 1 --warmup 0 --no-counters \
      > "$OUT/ncu_$name.log" 2>&1
  echo "$name rc=$?"
}
run flash2_d128_32x128 flash2_fwd --kernel attention-flash2 --batch 4 --heads 16 --seq 4096 --head-dim 128 --tile-m 32 --tile-n 128
run flash2_d64_64x32 flash2_fwd --kernel attention-flash2 --batch 4 --heads 32 --seq 4096 --head-dim 64 --tile-m 64 --tile-n 32
run flash2_d128_128x128_n512 flash2_fwd --kernel attention-flash2 --batch 32 --heads 16 --seq 512 --head-dim 128 --tile-m 128 --tile-n 128
run gemm_1024_128x128 gemm_kernel --kernel gemm --m 1024 --n 1024 --k 1024 --tile-m 128 --tile-n 128 --tile-k 32 --stages 3 --warps 8
run flash1_d64_64x64 flash1_fwd --kernel attention-flash1 --batch 4 --heads 32 --seq 4096 --head-dim 64 --tile-m 64 --tile-n 64
