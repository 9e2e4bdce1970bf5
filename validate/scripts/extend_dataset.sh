#!/usr/bin/env bash
# Device call: measures data-set cases added to validate/dataset_cases.cpp with the data set's
# protocol, so they can be appended to profiles/validation/<profile>-dataset.jsonl (change 27):
# one pass with CUPTI counters (2 warm-up, median of 5), then two time-only passes (3 warm-up,
# median of 25), as change 21 re-timed the rest; validate/scripts/retime_merge.py merges them.
# Usage (repo root on the GPU machine, .deps/calib from stage.sh carried):
#   validate/scripts/extend_dataset.sh PATTERN [PATTERN ...]
#   -> $OUT/new.jsonl, $OUT/pass1.jsonl, $OUT/pass2.jsonl, logs, nvidia-smi before and after.
# Merge here:  retime_merge.py $OUT/new.jsonl $OUT/pass1.jsonl $OUT/pass2.jsonl --out merged.jsonl
. "$(dirname "$0")/device_env.sh"
M=()
for p in "$@"; do M+=(--cases-matching "$p"); done
smi() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit,temperature.gpu --format=csv >> "$OUT/nvidia-smi.csv" 2>&1; }
smi
"$B" calibrate --gpu h100-sxm --measure-dataset "$OUT/new.jsonl" "${M[@]}" --repeats 5 --warmup 2 2> "$OUT/measure.log"
echo "counters pass rc=$?"; smi
for i in 1 2; do
  "$B" calibrate --gpu h100-sxm --measure-dataset "$OUT/pass$i.jsonl" "${M[@]}" --no-counters --repeats 25 --warmup 3 2> "$OUT/pass$i.log"
  echo "time pass $i rc=$?"; smi
done
git rev-parse HEAD > "$OUT/commit.txt" 2>/dev/null
date -u +%FT%TZ > "$OUT/date.txt"
cat "$OUT/nvidia-smi.csv"
tail -n 2 "$OUT/measure.log" "$OUT/pass1.log" "$OUT/pass2.log"
