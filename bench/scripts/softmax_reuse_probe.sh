#!/usr/bin/env bash
# tilescope-softmax-reuse-probe on the lent GPU (docs/validation change 90): its correctness check,
# its timed run, and one profiled launch per grid under Nsight Compute (the L2 flushed before each
# by --cache-control all) with the DRAM, L2 and L1 counters that say where the re-read came from.
# Device call:
#   stage: bash validate/scripts/stage.sh build/release; cp build/release/bin/tilescope-softmax-reuse-probe
#          .deps/calib/bin/ (a CUDA build); carry ".deps/calib".
#   run:   OUT=$OUT bash bench/scripts/softmax_reuse_probe.sh
# Writes $OUT/provenance.txt, check.txt, times.jsonl (+ .err), ncu.csv (the probe's lines and
# Nsight Compute's rows, in launch order; + ncu.err). bench/scripts/softmax_reuse_summary.py reads them.
set -u
export LD_LIBRARY_PATH=$PWD/.deps/calib/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
P=.deps/calib/bin/tilescope-softmax-reuse-probe
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,clocks.sm --format=csv; "$NCU" --version; date -u; git log -1 --format=%H; } > $OUT/provenance.txt 2>&1
$P --check > $OUT/check.txt 2>&1; echo check rc=$?
$P > $OUT/times.jsonl 2> $OUT/times.err; echo times rc=$?
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,launch__shared_mem_config_size,launch__occupancy_limit_shared_mem
"$NCU" --cache-control all --clock-control none --kernel-name regex:softmax_kernel --metrics $M --csv --page raw $P --profile > $OUT/ncu.csv 2> $OUT/ncu.err; echo ncu rc=$?
tail -3 $OUT/ncu.err; grep -c "^\"" $OUT/ncu.csv; head -3 $OUT/times.jsonl; tail -2 $OUT/check.txt
