#!/usr/bin/env bash
# Device call (CPU only): predicts every case of the data set with each of several calibrated
# profiles in one call, so two refit candidates are judged on one machine and build. Runs one
# `tilescope validate --jobs 1` per (profile, shard), NPROC at a time, the shards in the order
# shard_dataset.py wrote them (most expensive first) and the profiles interleaved, so both
# candidates' slowest shards start first; every finished shard survives the deadline.
# Usage (repo root, .deps/calib carried with bin/, lib/, shards/ and the profiles):
#   validate/scripts/predict_candidates.sh DEADLINE_S PROFILE.json [PROFILE.json ...]
# SHARDS=DIR takes the shards from DIR instead of .deps/calib/shards (e.g. the H200 data set's).
# VALIDATE_ARGS="--exact" passes extra options to every `tilescope validate` (word-split).
# -> $OUT/<profile>.tar (pred/shard-NNN.jsonl + .err) for each profile, shards.log.
# Merge a profile's shards with validate/scripts/merge_predictions.sh.
set -u
OUT=${OUT:-/tmp/tilescope_out}
export LD_LIBRARY_PATH="$PWD/.deps/calib/lib:${LD_LIBRARY_PATH:-}"
export TILESCOPE_PROFILE_DIR="$PWD/profiles"
B=$PWD/.deps/calib/bin/tilescope
DEADLINE_S=$1; shift
t0=$(date +%s)
VALIDATE_ARGS=${VALIDATE_ARGS:-}
export B OUT t0 DEADLINE_S VALIDATE_ARGS
for p in "$@"; do
  [ -f "$p" ] || { echo "no profile $p" >&2; exit 2; }
  mkdir -p "$OUT/$(basename "$p" .json)/pred"
done
SHARDS=${SHARDS:-.deps/calib/shards}
for s in "$SHARDS"/*.jsonl; do for p in "$@"; do echo "$p $s"; done; done |
  xargs -P "$(nproc)" -L 1 sh -c '
    p=$0; s=$1; c=$(basename "$p" .json); n=$(basename "$s" .jsonl)
    left=$(( DEADLINE_S - ($(date +%s) - t0) ))
    [ "$left" -gt 5 ] || { echo "$c $n not started"; exit 0; }
    st=$(date +%s)
    timeout "$left" "$B" validate --gpu "$p" --measurements "$s" --split all --jobs 1 $VALIDATE_ARGS \
        --save-predictions "$OUT/$c/pred/$n.jsonl" > /dev/null 2> "$OUT/$c/pred/$n.err"
    echo "$c $n rc=$? $(( $(date +%s) - st )) s"' > "$OUT/shards.log" 2>&1
echo "shards done after $(( $(date +%s) - t0 )) s"
grep -v "rc=0" "$OUT/shards.log" | head -20
for p in "$@"; do
  c=$(basename "$p" .json)
  echo "$c: $(ls "$OUT/$c"/pred/*.jsonl 2>/dev/null | wc -l) prediction files"
  tar -C "$OUT/$c" -cf "$OUT/$c.tar" pred && rm -rf "${OUT:?}/$c"
done
