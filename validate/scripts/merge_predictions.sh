#!/usr/bin/env bash
# Merges the per-shard stored predictions of fit_and_validate.sh into one file:
#   validate/scripts/merge_predictions.sh OUT.jsonl pred/shard-*.jsonl
# Every shard must have the same header (model, GPU, profile fingerprint); the header is written
# once, then every shard's case lines. `tilescope validate --predictions OUT.jsonl` then checks
# that every case is present and re-predicts the cheapest ones.
set -eu
out=$1; shift
first=$(head -1 "$1")
for f in "$@"; do
  [ "$(head -1 "$f")" = "$first" ] || { echo "$f: header differs from $1" >&2; exit 2; }
done
{ echo "$first"; for f in "$@"; do tail -n +2 "$f"; done; } > "$out"
echo "$out: $(( $(wc -l < "$out") - 1 )) cases from $# shards"
