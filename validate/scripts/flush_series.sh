#!/usr/bin/env bash
# Flush series (docs/validation change 43): does a lone 2-stage GEMM block wait for an HBM fill or
# for an L2 hit? The iteration series' one-block-per-SM GEMMs (132 blocks, K = 8192, M = 704,
# N = 768 or 1536: A and B are 24 or 37 MB) timed twice each: as `tilescope measure` always
# times, with the L2 flushed before every repeat (A and B come from HBM, and the 11-12 blocks
# that read a k-tile together wait for one fill), and with --no-flush (the previous repeat left
# what fits of A and B in the L2). 64x64 and 128x128 tiles, 8 warps with 2 and 3 stages, and
# 64x64 with 4 warps and 2 stages.
# Usage (device call, repo root, .deps/calib carried from validate/scripts/stage.sh):
#   OUT=... validate/scripts/flush_series.sh   -> $OUT/flush.jsonl (one measure object per
#   launch, flushed then not, in that order per configuration), $OUT/log.txt, $OUT/smi.csv
SERIES_FILE=flush.jsonl
. "$(dirname "$0")/series_common.sh"
for cfg in "64 64 8 2" "64 64 8 3" "64 64 4 2" "128 128 8 2" "128 128 8 3"; do
  set -- $cfg
  if [ "$2" = 64 ]; then N=768; else N=1536; fi
  M=$((11 * $1))
  for flush in "" "--no-flush"; do
    m --kernel gemm --m $M --n $N --k 8192 --tile-m $1 --tile-n $2 --tile-k 32 --stages $4 --warps $3 $flush
  done
done
tail -n 5 "$OUT/log.txt"
