#!/usr/bin/env bash
# Device call (CPU only; uses the GPU machine's 16 cores for the simulator): calibrate on the
# training cases, then predict every case of the data set with the calibrated profile, one
# `tilescope validate --jobs 1` per shard (validate/scripts/shard_dataset.py), NPROC shards at a
# time, so every finished shard's predictions survive the call's time limit.
# Usage (repo root, .deps/calib carried with bin/, lib/, shards/ and optionally <profile>.json):
#   validate/scripts/fit_and_validate.sh DATA.jsonl PROFILE [FIT_CASES] [EVALS] [FIT_BUDGET_S] [DEADLINE_S]
# START=NAME=VALUE,... (environment) starts the search there (tilescope calibrate --start);
# MIN_PER_FAMILY=N (environment) keeps N training cases of every kernel family in the fit set.
# If .deps/calib/<PROFILE>.json exists (a second call), calibrate is skipped and that profile is
# used for the shards left in .deps/calib/shards.
# -> $OUT/<profile>.json, <profile>.fit-report (JSON), calibrate.log, <profile>.tar (pred/shard-NNN.jsonl
#    + .err), shards.log. Merge the shards' predictions with validate/scripts/merge_predictions.sh.
set -u
OUT=${OUT:-/tmp/tilescope_out}
export LD_LIBRARY_PATH="$PWD/.deps/calib/lib:${LD_LIBRARY_PATH:-}"
export TILESCOPE_PROFILE_DIR="$PWD/profiles"
B=$PWD/.deps/calib/bin/tilescope
DATA=$1
PROFILE=$2
FIT_CASES=${3:-100}
EVALS=${4:-100}
FIT_BUDGET_S=${5:-180}
DEADLINE_S=${6:-560}
J=$(nproc)
t0=$(date +%s)
if [ -f ".deps/calib/$PROFILE.json" ]; then
  CAL=$PWD/.deps/calib/$PROFILE.json
  echo "using the carried calibrated profile $CAL"
else
  CAL=$OUT/$PROFILE.json
  timeout $(( FIT_BUDGET_S + 120 )) "$B" calibrate --gpu "$PROFILE" --from "$DATA" --out "$CAL" --jobs "$J" \
      --fit-budget-s "$FIT_BUDGET_S" --max-fit-cases "$FIT_CASES" --max-evals "$EVALS" \
      ${START:+--start "$START"} ${MIN_PER_FAMILY:+--min-per-family "$MIN_PER_FAMILY"} > "$OUT/calibrate.log" 2>&1
  echo "calibrate rc=$? after $(( $(date +%s) - t0 )) s"; cat "$OUT/calibrate.log"
fi
[ -f "$CAL" ] || { echo "no calibrated profile"; exit 1; }
# The shards: predict_candidates.sh with the deadline's time left.
OUT=$OUT "$(dirname "$0")/predict_candidates.sh" $(( DEADLINE_S - ($(date +%s) - t0) )) "$CAL"
