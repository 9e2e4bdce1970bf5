#!/usr/bin/env bash
# Where does an iteration's time go? Runs Nsight Compute (instruction, scheduler, warp-state,
# pipe and shared-memory sections, raw CSV) on every tile of two training sweeps of flash2
# (b16 h32 N1024 d64, b8 h16 N2048 d128) and two of GEMM (8192x2048x512, 2048^3), one launch
# each, for the iteration model of docs/validation/README.md ("What would move the figures").
# SET "others" instead probes a flash1 and a naive-attention training sweep (all three launches of
# naive attention) and safe and online softmax on a shape that is not in the data set. SET
# "gemm-iter" counts the instructions of the iteration series' GEMM grids (change 56); SET
# "gemm-smem" profiles the same grids' shared-memory pipe (wavefronts, bank conflicts, ldmatrix and
# cp.async instructions) and tensor pipe, per block and iteration (change 57); SET "softmax-w"
# profiles safe and online softmax at one, two and four warps on three training shapes of the data
# set (131072 x 512, 32768 x 2048, 8192 x 2048) with the default sections (change 59).
# Device call:
#   stage: bash validate/scripts/stage.sh build/release; carry ".deps/calib".
#   run:   bash bench/scripts/issue_probe.sh "$OUT" [flash2-gemm|others|gemm-iter|gemm-smem|softmax-w]
# Writes $OUT/provenance.txt and $OUT/<case>.csv (ncu --csv --page raw; one row per launch).
set -u
OUT=${1:-/tmp/issue_probe}
SET=${2:-flash2-gemm}
# shellcheck source=bench/scripts/ncu_common.sh
. "$(dirname "$0")/ncu_common.sh"
SECTIONS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats
--section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis
--section LaunchStats"
run() {  # name, kernel regex, workload flags (LAUNCHES: launches to profile, default 1)
  local name=$1 re=$2; shift 2
  # shellcheck disable=SC2086
  "$NCU" --clock-control none $SECTIONS --csv --page raw --kernel-name "regex:$re" --launch-count "${LAUNCHES:-1}" \
      "$B" measure "$@" --repeats 1 --warmup 0 --no-counters > "$OUT/$name.csv" 2> "$OUT/$name.err"
  echo "$name rc=$?"
}
TILES9="128:32:8 128:64:8 128:128:8 64:32:4 64:64:4 64:128:4 32:32:2 32:64:2 32:128:2"
gemm_grids() {  # prefix, stage counts: the iteration series' one-wave GEMM grids (132 blocks, N = 12
  # tiles; validate/scripts/iteration_series.sh), every tile x {4, 8} warps x those stages, at K =
  # 2048 and 8192, one `run` each with the caller's SECTIONS.
  local prefix=$1 stages=$2 TM TN N M W S K
  for TM in 64 128; do for TN in 64 128; do
    if [ "$TN" = 64 ]; then N=768; else N=1536; fi
    M=$((132 / 12 * TM))
    for W in 4 8; do for S in $stages; do for K in 2048 8192; do
      run "${prefix}_${TM}x${TN}_w${W}_s${S}_k${K}" gemm_kernel --kernel gemm --m $M --n $N --k $K \
          --tile-m $TM --tile-n $TN --tile-k 32 --stages $S --warps $W
    done; done; done
  done; done
}
if [ "$SET" = gemm-iter ]; then
  # The iteration series' one-wave GEMM grids (validate/scripts/iteration_series.sh: 132 blocks,
  # N = 12 tiles, every tile x {4, 8} warps x {2, 3, 4} stages) at K = 2048 and 8192, instruction
  # counts only: the difference over the 192 iterations between them is one iteration's
  # instructions per warp (change 56). Counts depend on the binary, not the clock or the card.
  SECTIONS="--metrics smsp__inst_executed.sum,gpu__time_duration.sum,smsp__warps_active.avg.per_cycle_active" \
      gemm_grids gemmiter "2 3 4"
  exit 0
fi
if [ "$SET" = gemm-smem ]; then
  # The same one-wave grids as gemm-iter, 3 and 4 stages, with the sections that count the
  # shared-memory pipe's wavefronts and bank conflicts per instruction kind (ldmatrix, cp.async's
  # writes, plain loads and stores) and the pipes' utilisation (change 57). Counts depend on the
  # binary and the SM, not the clock or the HBM: an H200 gives the H100's.
  "$NCU" --query-metrics --chip gh100 > "$OUT/query_metrics.txt" 2>&1
  SECTIONS="--section MemoryWorkloadAnalysis_Tables --section InstructionStats --section ComputeWorkloadAnalysis
--metrics smsp__inst_executed.sum,gpu__time_duration.sum" gemm_grids gemmsmem "3 4"
  exit 0
fi
if [ "$SET" = softmax-w ]; then
  # Where one-warp rows beat two-warp rows (change 59): the training shapes whose one-, two- and
  # four-warp tiles the model orders wrong, both variants, every section of the default set.
  for shape in 131072:512 32768:2048 8192:2048; do
    IFS=: read -r rows cols <<< "$shape"
    for v in safe online; do
      for t in 256:1 512:2 1024:4; do
        IFS=: read -r tn w <<< "$t"
        run "softmax_${v}_r${rows}c${cols}_w${w}" softmax_kernel --kernel softmax --variant "$v" --rows "$rows" \
            --cols "$cols" --tile-m 1 --tile-n "$tn" --stages 1 --warps "$w"
      done
    done
  done
  exit 0
fi
if [ "$SET" = others ]; then
  for t in $TILES9; do
    IFS=: read -r br bc w <<< "$t"
    run "flash1_b16h16n1024d128_${br}x${bc}" flash1_fwd --kernel attention-flash1 --batch 16 --heads 16 --seq 1024 \
        --head-dim 128 --tile-m "$br" --tile-n "$bc" --stages 1 --warps "$w"
  done
  for t in 128:128 128:64 64:128 64:64; do
    IFS=: read -r tm tn <<< "$t"
    LAUNCHES=3 run "naive_b16h16n1024d128_${tm}x${tn}" "gemm_kernel|softmax_kernel" --kernel attention-naive \
        --batch 16 --heads 16 --seq 1024 --head-dim 128 --variant safe --tile-m "$tm" --tile-n "$tn" --tile-k 32 \
        --stages 2 --warps 8
  done
  for v in safe online; do
    for t in 256:1 512:2 1024:4; do
      IFS=: read -r tn w <<< "$t"
      run "softmax_${v}_r8192c8192_${tn}" softmax_kernel --kernel softmax --variant "$v" --rows 8192 --cols 8192 \
          --tile-m 1 --tile-n "$tn" --stages 1 --warps "$w"
    done
  done
  exit 0
fi
for t in $TILES9; do
  IFS=: read -r br bc w <<< "$t"
  run "flash2_b16h32n1024d64_${br}x${bc}" flash2_fwd --kernel attention-flash2 --batch 16 --heads 32 --seq 1024 \
      --head-dim 64 --tile-m "$br" --tile-n "$bc" --stages 2 --warps "$w"
  run "flash2_b8h16n2048d128_${br}x${bc}" flash2_fwd --kernel attention-flash2 --batch 8 --heads 16 --seq 2048 \
      --head-dim 128 --tile-m "$br" --tile-n "$bc" --stages 2 --warps "$w"
done
for t in 128:128 128:64 64:128 64:64; do
  IFS=: read -r tm tn <<< "$t"
  run "gemm_8192x2048x512_${tm}x${tn}" gemm_kernel --kernel gemm --m 8192 --n 2048 --k 512 --tile-m "$tm" \
      --tile-n "$tn" --tile-k 32 --stages 3 --warps 8
  run "gemm_2048x2048x2048_${tm}x${tn}" gemm_kernel --kernel gemm --m 2048 --n 2048 --k 2048 --tile-m "$tm" \
      --tile-n "$tn" --tile-k 32 --stages 3 --warps 8
done
