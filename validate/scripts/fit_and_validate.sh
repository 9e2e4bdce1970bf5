#!/usr/bin/env bash
# Device call 2 of 2 (CPU only; uses the GPU machine's 16 cores for the simulator): calibrate
# on the training cases, then validate every case with the calibrated profile, store the
# predictions and write the Markdown report with its plots.
# Usage (repo root, .deps/calib carried):
#   validate/scripts/fit_and_validate.sh DATA.jsonl PROFILE [FIT_CASES] [EVALS] [FIT_BUDGET_S]
# -> $OUT/<profile>.json, <profile>.fit.json, predictions.jsonl, report.tar (README.md + PNGs), logs
set -u
OUT=${OUT:-/tmp/tilescope_out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/.deps/calib/lib:${LD_LIBRARY_PATH:-}"
export TILESCOPE_PROFILE_DIR="$PWD/profiles"
B=.deps/calib/bin/tilescope
DATA=$1
PROFILE=$2
FIT_CASES=${3:-100}
EVALS=${4:-60}
J=$(nproc)
t0=$(date +%s)
timeout 330 "$B" calibrate --gpu "$PROFILE" --from "$DATA" --out "$OUT/$PROFILE.json" --jobs "$J" --fit-budget-s "${5:-240}" \
    --max-fit-cases "$FIT_CASES" --max-evals "$EVALS" > "$OUT/calibrate.log" 2>&1
echo "calibrate rc=$? after $(( $(date +%s) - t0 )) s"; cat "$OUT/calibrate.log"
timeout $(( 570 - ($(date +%s) - t0) )) "$B" validate --gpu "$OUT/$PROFILE.json" --measurements "$DATA" --split all \
    --format markdown --out "$OUT/report" --jobs "$J" --save-predictions "$OUT/predictions.jsonl" > "$OUT/validate.log" 2>&1
echo "validate rc=$? after $(( $(date +%s) - t0 )) s"; cat "$OUT/validate.log"
tar -C "$OUT" -cf "$OUT/report.tar" report && rm -rf "$OUT/report"
"$B" validate --gpu "$OUT/$PROFILE.json" --measurements "$DATA" --split all --predictions "$OUT/predictions.jsonl" \
    --verify-sample 0 --format table > "$OUT/validation.txt" 2>&1
sed -n '/^checks/,$p' "$OUT/validation.txt"
