#!/usr/bin/env bash
# One device call: probe, correctness tests, CUPTI copy check, sanitizers, microbenchmarks,
# attention performance table (naive vs flash2 vs torch SDPA). Logs go to $OUT.
# Usage (repo root on the GPU machine, .deps carried):
#   kernels/scripts/device_check.sh [probe] [tests] [sanitize] [micro] [perf] [counters]
set -u
FINAL_OUT=${OUT:-/tmp/tilescope_out}
OUT=$FINAL_OUT/raw      # everything is packed into $FINAL_OUT/results.tgz at the end
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.deps/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PYTHONUNBUFFERED=1
B=${TS_BIN:-.deps/bin}   # stripped copies of build/gpu/bin (kernels/scripts/stage_deps.sh)
KB=$B/tilescope-kernel-bench
STEPS=" ${*:-all} "
want2() { [[ "$STEPS" == *" all "* || "$STEPS" == *" $1 "* ]]; }
t0=$(date +%s)
step() { echo "=== $1 ($(( $(date +%s) - t0 )) s)"; }

if want2 probe; then
  step probe
  { nvidia-smi; nvcc --version | tail -2; python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())";
    which ncu compute-sanitizer; uname -r; } > "$OUT/probe.log" 2>&1
  head -20 "$OUT/probe.log" | grep -E "H100|Driver|torch|release" 
fi
if want2 tests; then
  step tests
  $B/test_kernels > "$OUT/tests.log" 2>&1; echo "test_kernels rc=$?"; tail -4 "$OUT/tests.log"
  $KB copy-check 2>&1 | tee -a "$OUT/checks.jsonl"
fi
if want2 micro; then
  step micro
  $KB microbench 2>&1 | tee -a "$OUT/checks.jsonl"
fi
if want2 perf; then
  step perf
  $KB attention-table --no-counters --repeats 10 > "$OUT/attention_table.jsonl" 2> "$OUT/perf.err"; echo "table rc=$?"
  python3 bench/attention_vs_torch.py torch --repeats 10 > "$OUT/torch.jsonl" 2>> "$OUT/perf.err"; echo "torch rc=$?"
  python3 bench/attention_vs_torch.py table "$OUT/attention_table.jsonl" "$OUT/torch.jsonl" | tee "$OUT/attention_table.md"
  tail -3 "$OUT/perf.err"
fi
if want2 causal; then
  step causal
  $KB attention-table --no-counters --repeats 10 --causal --max-seq 8192 > "$OUT/attention_table_causal.jsonl" 2>> "$OUT/perf.err"; echo "causal table rc=$?"
  python3 bench/attention_vs_torch.py torch --repeats 10 --causal > "$OUT/torch_causal.jsonl" 2>> "$OUT/perf.err"; echo "torch causal rc=$?"
  python3 bench/attention_vs_torch.py table "$OUT/attention_table_causal.jsonl" "$OUT/torch_causal.jsonl" | tee "$OUT/attention_table_causal.md"
fi
if want2 ctest; then
  step ctest
  # ctest files carry this machine's absolute paths (/work/main/build/gpu/...): recreate them here.
  if [ -d .deps/ctest ]; then
    mkdir -p /work/main/build/gpu && ln -sfn "$PWD/.deps/bin" /work/main/build/gpu/bin
    # only the kernels' test folder: the other parts' Catch-discovered test lists are not carried
    (cd .deps/ctest/tests/kernels && ctest -L gpu --output-on-failure) > "$OUT/ctest.log" 2>&1; echo "ctest -L gpu rc=$?"; tail -5 "$OUT/ctest.log"
  fi
fi
if want2 counters; then
  step counters
  for cfg in "--kernel attention-naive --batch 4 --heads 32 --seq 4096 --head-dim 64" \
             "--kernel attention-flash2 --batch 4 --heads 32 --seq 4096 --head-dim 64 --tile-m 128 --tile-n 64" \
             "--kernel attention-flash1 --batch 4 --heads 32 --seq 4096 --head-dim 64 --tile-m 64 --tile-n 64" \
             "--kernel gemm --m 4096 --n 4096 --k 4096" \
             "--kernel softmax --rows 16384 --cols 4096"; do
    $KB run $cfg --repeats 10 >> "$OUT/counters.jsonl" 2>> "$OUT/counters.err"; echo "counters rc=$? :: $cfg"
  done
  tail -3 "$OUT/counters.err"
fi
if want2 ncu; then
  step ncu
  # Cross-check of the harness's counter mapping against Nsight Compute on one small launch.
  CFG="--kernel attention-flash2 --batch 1 --heads 8 --seq 1024 --head-dim 64 --tile-m 128 --tile-n 64"
  $KB run $CFG --repeats 1 --warmup 0 > "$OUT/ncu_harness.jsonl" 2>&1
  ncu --metrics dram__bytes_read.sum,lts__t_bytes.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum,smsp__inst_executed_op_ldgsts.sum,sm__inst_executed_op_ldsm.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__inst_executed_pipe_tensor_op_hmma.sum,smsp__sass_data_bytes_mem_shared_op_ldsm.sum \
      --kernel-name regex:flash2_fwd --launch-count 1 $KB run $CFG --repeats 1 --warmup 0 --no-counters --no-flush > "$OUT/ncu.log" 2>&1
  echo "ncu rc=$?"; grep -E "dram__|lts__|l1tex__|smsp__|sm__" "$OUT/ncu.log" | head -12
fi
if want2 measure; then
  step measure
  export TILESCOPE_PROFILE_DIR=$PWD/profiles
  T=$B/tilescope
  mkdir -p "$OUT/measurements"
  $T measure --kernel attention-flash2 --batch 4 --heads 32 --seq 4096 --head-dim 64 --gpu h100-sxm --repeats 10 > "$OUT/measure_table.txt" 2>&1; echo "measure table rc=$?"
  $T measure --kernel attention-flash2 --seq 1024,4096 --tile-m 64,128 --tile-n 64 --warps 4,8 --gpu h100-sxm --repeats 5 --format csv > "$OUT/measure_sweep.csv" 2>&1; echo "measure sweep rc=$?"
  for d in 64 128; do
    for k in attention-naive attention-flash2 attention-flash1; do
      extra=""; [ $k = attention-flash1 ] && extra="--tile-m 64 --tile-n 64"
      $T measure --kernel $k --batch 4 --heads 32 --seq 4096 --head-dim $d $extra --gpu h100-sxm --repeats 10 --format json \
        --out "$OUT/measurements/h100-sxm_${k}_b4_h32_n4096_d${d}.json" 2>> "$OUT/measure.err"; echo "measure $k d=$d rc=$?"
    done
  done
  $T measure --kernel gemm --gpu h100-sxm --repeats 10 --format json --out "$OUT/measurements/h100-sxm_gemm_4096.json" 2>> "$OUT/measure.err"
  $T measure --kernel softmax --gpu h100-sxm --repeats 10 --format json --out "$OUT/measurements/h100-sxm_softmax_16384x4096.json" 2>> "$OUT/measure.err"
  $T measure --kernel attention-flash2 --head-dim 32; echo "unsupported rc=$? (expect 2)"
  $T measure --kernel attention-flash2 --tile-m 256; echo "unsupported rc=$? (expect 2)"
  tail -3 "$OUT/measure.err"
fi
if want2 sanitize; then
  step sanitize
  S="--no-counters --repeats 1 --warmup 0 --no-flush"
  for tool in memcheck racecheck; do
    for cfg in "--kernel attention-flash2 --batch 1 --heads 2 --seq 200 --head-dim 64 --tile-m 64 --tile-n 64 --causal" \
               "--kernel attention-flash2 --batch 1 --heads 1 --seq 130 --head-dim 128 --tile-m 128 --tile-n 32" \
               "--kernel attention-flash1 --batch 1 --heads 2 --seq 200 --head-dim 64 --tile-m 64 --tile-n 64 --causal" \
               "--kernel attention-naive --batch 1 --heads 2 --seq 200 --head-dim 64 --tile-m 64 --tile-n 64 --tile-k 32 --stages 3 --warps 4 --causal" \
               "--kernel gemm --m 200 --n 136 --k 72 --tile-m 128 --tile-n 128 --tile-k 32 --stages 3 --warps 8" \
               "--kernel softmax --rows 37 --cols 1000 --variant online"; do
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $KB run $cfg $S > "$OUT/san_tmp.log" 2>&1
      rc=$?
      echo "$tool rc=$rc :: $cfg :: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_tmp.log" | tr '\n' ' ')" | tee -a "$OUT/sanitizer.log"
      [ $rc -ne 0 ] && head -40 "$OUT/san_tmp.log" >> "$OUT/sanitizer.log"
    done
  done
  rm -f "$OUT/san_tmp.log"
fi
step done
tar czf "$FINAL_OUT/results.tgz" -C "$OUT" . && rm -rf "$OUT"
