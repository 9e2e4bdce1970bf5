#!/usr/bin/env bash
# Why does naive attention's QK^T launch run its square tiles (64x64, 128x128) faster than the
# non-square ones at d = 64, and 128x128 fastest at d = 128? QK^T is the GEMM kernel writing the
# N x N score matrix as mma accumulator fragments (docs/validation, twenty-fifth session). Runs
# Nsight Compute on the QK^T launch only (the first gemm_kernel of the case) for the four tiles of
# two training sweeps, b8 h32 N2048 d64 and b8 h16 N2048 d128, with the store path's counters
# (L1 store requests and sectors, L2 write requests and sectors by hit/miss, DRAM writes, the far
# partition's lookups), the warp-state and memory sections, and the time.
# Device call:
#   stage: bash validate/scripts/stage.sh build/release; carry ".deps/calib".
#   run:   bash bench/scripts/qk_store_probe.sh "$OUT"
# Writes $OUT/provenance.txt and $OUT/<case>.csv (ncu --csv --page raw; one row: the QK^T launch).
set -u
OUT=${1:-/tmp/qk_store_probe}
# shellcheck source=bench/scripts/ncu_common.sh
. "$(dirname "$0")/ncu_common.sh"
METRICS=gpu__time_duration.sum,dram__bytes_write.sum,dram__bytes_read.sum,\
lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,\
lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum,\
lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,\
lts__t_sectors_srcunit_ltcfabric.sum,lts__t_bytes.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
smsp__inst_executed_op_global_st.sum,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second,\
lts__d_sectors_fill_device.sum,lts__t_sectors_op_write.sum,lts__average_gcomp_input_sector_success_rate.pct
SECTIONS="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy
--section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section LaunchStats"
for d in 64 128; do
  h=32; [ "$d" = 128 ] && h=16
  for t in 128:128 128:64 64:128 64:64; do
    IFS=: read -r tm tn <<< "$t"
    name="qk_b8h${h}n2048d${d}_${tm}x${tn}"
    # shellcheck disable=SC2086
    "$NCU" --clock-control none $SECTIONS --metrics "$METRICS" --csv --page raw --kernel-name regex:gemm_kernel \
        --launch-count 1 "$B" measure --kernel attention-naive --batch 8 --heads "$h" --seq 2048 --head-dim "$d" \
        --variant safe --tile-m "$tm" --tile-n "$tn" --tile-k 32 --stages 2 --warps 8 --repeats 1 --warmup 0 \
        --no-counters > "$OUT/$name.csv" 2> "$OUT/$name.err"
    echo "$name rc=$?"
  done
done
