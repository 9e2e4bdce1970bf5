#!/usr/bin/env bash
# Device call 1 of 2: measure the validation data set (microbenchmarks + every case of
# validate/dataset_cases.cpp) on the local GPU with `tilescope calibrate --measure-dataset`.
# Cases run cheapest first; after BUDGET_S seconds the rest are written as "skipped".
# Usage (repo root on the GPU machine, .deps/calib carried):
#   validate/scripts/measure_dataset.sh [BUDGET_S]     -> $OUT/<profile>-dataset.jsonl, logs
. "$(dirname "$0")/device_env.sh"
BUDGET_S=${1:-470}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > "$OUT/nvidia-smi.csv" 2>&1
cat "$OUT/nvidia-smi.csv"
case "$(tail -1 "$OUT/nvidia-smi.csv")" in
  *H200*) PROFILE=h200 ;;
  *H100*) PROFILE=h100-sxm ;;
  *) PROFILE=h100-sxm ;;
esac
echo "profile: $PROFILE"
"$B" calibrate --gpu "$PROFILE" --measure-dataset "$OUT/$PROFILE-dataset.jsonl" --repeats 5 \
     --time-budget-s "$BUDGET_S" 2> "$OUT/measure.log"
echo "rc=$?"
grep -c '"model":"measured"' "$OUT/$PROFILE-dataset.jsonl"
grep -E "microbench|measured .* cases" "$OUT/measure.log"
grep -v "^\[" "$OUT/measure.log" | grep -v microbench | head -20
tail -3 "$OUT/measure.log"
